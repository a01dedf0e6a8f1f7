import sys

from gdl.cli import main

sys.exit(main())
