"""``python -m modelexport …``: the native CLI (see :mod:`modelexport.command_line`)."""
import sys

from .command_line import main

sys.exit(main())
