// The Teach page's step player (a Streamlit v2 component, mounted in the page itself).
//
// The server sends every step of a lesson once (sentence, caption, Plotly figure); this
// script steps through them in the browser: a click or key press changes the step at once
// (text first, the figure on the next animation frame), none is dropped, and the server is
// not asked for anything. The URL's ?step= follows the step, so a reload or a shared link
// opens the same one. Every piece of text is set with textContent: nothing in a lesson is
// ever read as markup.

// The same script drives an exported lesson file (components/lesson_export.py): there the
// data comes from the file itself, plotly.js is already in the page, no URL is kept, and
// a deck's steps carry the index of their lesson (data.lessons: title and pair of each).

// The last lesson shown and its step: a rerun of the page that sends the same lesson
// again (a layout switch, another widget) keeps the step instead of starting over.
const remembered = { id: null, step: 1 };

const NEXT = new Set(["ArrowRight", "PageDown", " ", "Spacebar"]);
const PREVIOUS = new Set(["ArrowLeft", "PageUp"]);
// Keys that jump a whole chapter (the digits 1-9 jump to that chapter of the lesson).
const NEXT_CHAPTER = new Set(["]", "n", "N"]);
const PREVIOUS_CHAPTER = new Set(["[", "p", "P"]);
// Elements of the page that use these keys themselves (outside the player).
const EDITING = 'input, textarea, select, button, summary, a[href], [contenteditable=""], ' +
  '[contenteditable="true"], [role="slider"], [role="radio"], [role="combobox"], [role="tab"], ' +
  '[role="option"], [role="button"], [role="listbox"], [role="switch"], [role="checkbox"]';

async function loadPlotly(chunk) {
  // plotly.js ships inside Streamlit's front end (the chunk that draws st.plotly_chart sets
  // window.Plotly); load that chunk if no chart has been drawn yet.
  if (window.Plotly) return window.Plotly;
  const main = document.querySelector('script[type="module"][src*="/static/js/index."]');
  if (!main || !chunk) throw new Error("Streamlit's plotly.js bundle was not found");
  await import(new URL(chunk, main.src).href);
  if (!window.Plotly) throw new Error("Streamlit's plotly.js bundle did not load");
  return window.Plotly;
}

// Runs of consecutive steps with the same lesson and chapter: [{lesson, title, first, last}]
// (1-based steps); a step without a chapter belongs to the one before it.
function chapterRuns(steps) {
  const runs = [];
  steps.forEach((step, k) => {
    const lesson = step.lesson || 0;
    const last = runs[runs.length - 1];
    if (last && last.lesson === lesson && (!step.chapter || step.chapter === last.title)) last.last = k + 1;
    else runs.push({ lesson, title: step.chapter || "Steps", first: k + 1, last: k + 1 });
  });
  return runs;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(label, className, title) {
  const node = element("button", "tp-button " + className, label);
  node.type = "button";
  node.title = title;
  // A mouse click must not move the focus onto the button: the keys keep stepping the
  // player (a focused button would also click on space).
  node.addEventListener("mousedown", (event) => event.preventDefault());
  return node;
}

// The smallest type a figure's text is drawn in, in CSS pixels (components/figures/legible.py).
const MIN_PX = 14;

// Fit a figure to ``height`` (the screen below the player): when its rows need more
// (layout.meta.need, its builder's estimate at its own type), its type shrinks toward
// MIN_PX and no further; what still does not fit makes the figure taller, and the page (or
// the full-screen player) scrolls to the rest. Returns the height to draw at.
function fitType(layout, traces, height) {
  const need = (layout.meta && layout.meta.need) || 0;
  const size = (layout.font && layout.font.size) || MIN_PX;
  if (!need || need <= height) return height;
  const factor = Math.max(MIN_PX / size, height / need);
  if (factor < 1) {
    const scaled = (font) => (font && font.size ? { ...font, size: Math.max(MIN_PX, Math.round(font.size * factor)) } : font);
    layout.font = scaled(layout.font);
    for (const trace of traces) if (trace.textfont) trace.textfont = scaled(trace.textfont);
    for (const note of layout.annotations || []) if (note.font) note.font = scaled(note.font);
  }
  return Math.max(height, Math.ceil(need * Math.min(1, factor)));
}

export default function (component) {
  const { data, parentElement } = component;
  const steps = data.steps;
  const count = steps.length;
  const clamp = (k) => Math.min(count, Math.max(1, Math.round(Number(k)) || 1));
  let step = clamp(remembered.id === data.id ? remembered.step : data.step);
  remembered.id = data.id;
  remembered.step = step;
  const path = window.location.pathname;
  const timers = [];

  const root = element("div", "tp" + (data.large ? " tp-large" : "") + (data.fit ? " tp-fit" : ""));
  root.dataset.steps = String(count);
  const lessons = data.lessons || [{ title: "", pair: data.pair }];
  const runs = chapterRuns(steps);
  const lessonTitle = element("div", "tp-lesson");
  const pairText = element("span", "tp-text");
  const pairHypothesis = element("span", "tp-hypothesis");
  if (lessons.some((lesson) => lesson.title)) root.append(lessonTitle);
  if (lessons.some((lesson) => lesson.pair)) {
    const pair = element("div", "tp-pair");
    pair.append(element("b", "", "Text: "), pairText, element("br"), element("b", "", "Hypothesis: "), pairHypothesis);
    root.append(pair);
  }
  const bar = element("div", "tp-bar");
  const previous = button("◀ Previous", "tp-previous", "Previous step (← or PageUp)");
  const next = button("Next ▶", "tp-next", "Next step (→, PageDown or space)");
  const counter = element("span", "tp-counter");
  const slider = element("input", "tp-slider");
  slider.type = "range";
  slider.min = "1";
  slider.max = String(count);
  slider.setAttribute("aria-label", "Step");
  const play = button("▶ Play", "tp-play", `A step every ${data.play_seconds} s until the last`);
  const full = button("Full screen", "tp-full", "Full screen (F; Esc leaves)");
  const chapters = element("select", "tp-chapters");
  chapters.setAttribute("aria-label", "Chapter");
  chapters.title = "Jump to a chapter (1-9: that chapter; ] or N: the next one; [ or P: the one before)";
  const groups = lessons.length > 1 ? lessons.map((lesson) => {
    const group = element("optgroup");
    group.label = lesson.title;
    chapters.append(group);
    return group;
  }) : null;
  runs.forEach((run, k) => {
    const option = element("option", "", `${runs.filter((r) => r.lesson === run.lesson).indexOf(run) + 1}. ${run.title}`);
    option.value = String(k);
    (groups ? groups[run.lesson] : chapters).append(option);
  });
  const keys = element("span", "tp-keys", "→ / PageDown / space: next · ← / PageUp: back · 1-9: chapter · F: full screen");
  bar.append(previous, next, counter, chapters, slider, play, full, keys);
  const sentence = element("p", "tp-sentence");
  sentence.setAttribute("aria-live", "polite");
  const caption = element("div", "tp-caption");
  const figure = element("div", "tp-figure");
  const status = element("div", "tp-status");
  root.append(bar, sentence, caption, figure, status);
  // Streamlit keeps the component's style sheet in the same parent: replace only the player.
  for (const old of parentElement.querySelectorAll(":scope > .tp")) old.remove();
  parentElement.append(root);

  let Plotly = null;
  let drawing = false; // a Plotly.react is under way
  let scheduled = false; // a draw waits for the next animation frame
  let dirty = false; // the step or the size changed while drawing
  let askedAt = performance.now();

  function syncUrl() {
    if (!data.param || !root.isConnected || window.location.pathname !== path) return;
    const url = new URL(window.location.href);
    if (url.searchParams.get(data.param) === String(step)) return;
    url.searchParams.set(data.param, String(step));
    window.history.replaceState(window.history.state, "", url);
  }

  function figureHeight(layout) {
    if (!data.fit && !document.fullscreenElement) return layout.height;
    const top = figure.getBoundingClientRect().top;
    return Math.max(240, Math.floor(window.innerHeight - Math.max(top, 0) - 12));
  }

  async function draw() {
    scheduled = false;
    if (!Plotly) return;
    if (drawing) {
      dirty = true;
      return;
    }
    drawing = true;
    dirty = false;
    const shown = step;
    const frame = steps[shown - 1].figure;
    const traces = structuredClone(frame.data);
    const layout = structuredClone(data.layouts[frame.layout]);
    layout.height = fitType(layout, traces, figureHeight(layout));
    layout.autosize = true;
    try {
      await Plotly.react(figure, traces, layout, data.config);
      status.textContent = "";
    } catch (error) {
      status.textContent = "The figure could not be drawn: " + error;
    }
    // Timed to the frame after the figure is in the page: what the audience sees.
    await new Promise((done) => window.requestAnimationFrame(() => done()));
    drawing = false;
    root.dataset.drawnStep = String(shown);
    // Milliseconds from the page's start to its first figure (the benchmarks read it).
    if (!root.dataset.firstFigureMs) root.dataset.firstFigureMs = performance.now().toFixed(0);
    if (shown === step) root.dataset.drawMs = (performance.now() - askedAt).toFixed(1);
    if (dirty || shown !== step) requestDraw();
  }

  function requestDraw() {
    if (scheduled) return;
    scheduled = true;
    window.requestAnimationFrame(() => draw());
  }

  function show(k) {
    step = clamp(k);
    remembered.step = step;
    askedAt = performance.now();
    const current = steps[step - 1];
    const lesson = lessons[current.lesson || 0] || lessons[0];
    const run = runOf(step);
    root.dataset.step = String(step);
    root.dataset.chapter = current.chapter || "";
    chapters.value = String(runs.indexOf(run));
    lessonTitle.textContent = lesson.title || "";
    if (lesson.pair) {
      pairText.textContent = lesson.pair.text;
      pairHypothesis.textContent = lesson.pair.hypothesis;
    }
    counter.textContent = `Step ${step} of ${count}`;
    sentence.textContent = current.sentence;
    caption.textContent = current.caption;
    slider.value = String(step);
    previous.disabled = step <= 1;
    next.disabled = step >= count;
    if (step >= count) stopPlaying();
    // The URL once the keys rest (Chrome ignores a page's history updates past about 200
    // in 10 s, which a held key could reach).
    window.clearTimeout(urlTimer);
    urlTimer = window.setTimeout(syncUrl, 150);
    requestDraw();
  }

  function runOf(k) {
    return runs.find((run) => run.first <= k && k <= run.last) || runs[0];
  }

  // The first step of a chapter: the Nth of the lesson shown (1-based), or one ``by``
  // chapters from the current one.
  function chapterStep(number, by) {
    const here = runOf(step);
    if (by) {
      const to = runs[Math.min(runs.length - 1, Math.max(0, runs.indexOf(here) + by))];
      return to.first;
    }
    const ofLesson = runs.filter((run) => run.lesson === here.lesson);
    return number <= ofLesson.length ? ofLesson[number - 1].first : null;
  }

  let urlTimer = 0;
  let player = null;
  function stopPlaying() {
    if (player !== null) window.clearInterval(player);
    player = null;
    play.textContent = "▶ Play";
  }
  function togglePlay() {
    if (player !== null) return stopPlaying();
    if (step >= count) show(1);
    play.textContent = "⏸ Pause";
    player = window.setInterval(() => show(step + 1), data.play_seconds * 1000);
  }

  function toggleFullScreen() {
    if (document.fullscreenElement) document.exitFullscreen();
    else if (root.requestFullscreen) root.requestFullscreen().catch(() => {});
  }

  function onKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey || !root.isConnected) return;
    const target = event.target instanceof Element ? event.target : null;
    if (target && !root.contains(target) && target.closest(EDITING)) return;
    if (target === slider && !NEXT.has(event.key) && !PREVIOUS.has(event.key)) return;
    let to = null;
    if (NEXT.has(event.key)) to = step + 1;
    else if (PREVIOUS.has(event.key)) to = step - 1;
    else if (event.key === "Home") to = 1;
    else if (event.key === "End") to = count;
    else if (NEXT_CHAPTER.has(event.key)) to = chapterStep(0, 1);
    else if (PREVIOUS_CHAPTER.has(event.key)) to = step > runOf(step).first ? runOf(step).first : chapterStep(0, -1);
    else if (/^[1-9]$/.test(event.key)) to = chapterStep(Number(event.key), 0);
    else if (event.key === "f" || event.key === "F") {
      event.preventDefault();
      toggleFullScreen();
      return;
    } else return;
    if (target === chapters) chapters.blur();
    event.preventDefault();
    event.stopPropagation();
    if (to === null) return;
    show(to);
  }

  previous.addEventListener("click", () => show(step - 1));
  next.addEventListener("click", () => show(step + 1));
  play.addEventListener("click", togglePlay);
  full.addEventListener("click", toggleFullScreen);
  slider.addEventListener("input", () => show(slider.value));
  slider.addEventListener("change", () => slider.blur());
  chapters.addEventListener("change", () => {
    show(runs[Number(chapters.value)].first);
    chapters.blur();
  });
  const onResize = () => requestDraw();
  const onFullScreen = () => {
    full.textContent = document.fullscreenElement ? "✕ Leave full screen" : "Full screen";
    requestDraw();
  };
  window.addEventListener("keydown", onKey, true);
  window.addEventListener("resize", onResize);
  document.addEventListener("fullscreenchange", onFullScreen);
  // Streamlit rewrites the URL when a widget bound to it changes: put the step back.
  timers.push(window.setInterval(syncUrl, 500));

  show(step);
  loadPlotly(data.plotly).then((loaded) => {
    Plotly = loaded;
    requestDraw();
  }).catch((error) => {
    status.textContent = "The figures need plotly.js, which did not load: " + error.message;
  });

  return () => {
    stopPlaying();
    window.clearTimeout(urlTimer);
    for (const timer of timers) window.clearInterval(timer);
    window.removeEventListener("keydown", onKey, true);
    window.removeEventListener("resize", onResize);
    document.removeEventListener("fullscreenchange", onFullScreen);
    if (Plotly) Plotly.purge(figure);
  };
}
