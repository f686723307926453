"""``python -m serve``: the class server (:mod:`serve.class_server`), as ``make serve-class`` runs it."""

import sys

from serve.class_server import main

sys.exit(main())
