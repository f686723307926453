// What this browser remembers for the explorer, and the Pair page's open method tab in the
// URL (a Streamlit v2 component, mounted in the page itself, no iframe).
//
// data.cookies: {name: value} written as first-party cookies of this site (a year; an empty
//   value removes the cookie). The server reads them when a tab connects
//   (st.context.cookies): the annotator's name survives a reload in this browser only.
// data.intro: {text, button, cookie}: one line with a dismiss button; dismissing writes the
//   cookie and removes the line at once, without asking the server.
// data.tabs: {container, param, first}: after a click or a key press on the tabs inside
//   the element of class `container`, the URL's `param` names the open tab (removed for
//   the first), so a reload or a copied link reopens it; the switch itself stays in the
//   browser.
// Every text is set with textContent: nothing here is ever read as markup.

const YEAR = 365 * 24 * 3600;
let tabs = null; // the latest data.tabs (the listeners below are installed once)

function writeCookie(name, value) {
  const base = `; path=/; SameSite=Lax`;
  if (value === null || value === undefined || value === "") {
    document.cookie = `${name}=${base}; max-age=0`;
  } else {
    document.cookie = `${name}=${encodeURIComponent(value)}${base}; max-age=${YEAR}`;
  }
}

function hasCookie(name) {
  return document.cookie.split(";").some((part) => part.trim().startsWith(name + "="));
}

function showIntro(parentElement, intro) {
  for (const old of parentElement.querySelectorAll(":scope > .bm-intro")) old.remove();
  if (hasCookie(intro.cookie)) return;
  const line = document.createElement("div");
  line.className = "bm-intro";
  const text = document.createElement("span");
  text.textContent = intro.text;
  const close = document.createElement("button");
  close.type = "button";
  close.className = "bm-dismiss";
  close.textContent = "✕";
  close.title = intro.button;
  close.setAttribute("aria-label", intro.button);
  close.addEventListener("click", () => {
    writeCookie(intro.cookie, "1");
    line.remove();
  });
  line.append(text, close);
  parentElement.append(line);
}

function noteTab() {
  if (tabs === null) return;
  const selected = document.querySelector(`.${tabs.container} [role="tab"][aria-selected="true"]`);
  if (!selected) return;
  const label = selected.textContent.trim();
  const url = new URL(window.location.href);
  if (label === tabs.first) url.searchParams.delete(tabs.param);
  else url.searchParams.set(tabs.param, label);
  if (url.href !== window.location.href) window.history.replaceState(window.history.state, "", url.href);
}

function followTabs() {
  if (followTabs.installed) return;
  followTabs.installed = true;
  for (const kind of ["click", "keyup"]) {
    document.addEventListener(kind, (event) => {
      if (tabs !== null && event.target instanceof Element && event.target.closest(`.${tabs.container}`)) {
        window.requestAnimationFrame(noteTab);
      }
    }, true);
  }
}

export default function (component) {
  const { data, parentElement } = component;
  for (const [name, value] of Object.entries(data.cookies || {})) writeCookie(name, value);
  if (data.intro) showIntro(parentElement, data.intro);
  if (data.tabs) {
    tabs = data.tabs;
    followTabs();
  }
}
