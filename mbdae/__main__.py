"""`python -m mbdae ...`: see mbdae.cli."""
import sys

from mbdae.cli import main

sys.exit(main())
