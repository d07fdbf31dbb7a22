"""`python -m h5turbo ...`: the same as the h5turbo command."""
import sys

from h5turbo._cli import main

sys.exit(main())
