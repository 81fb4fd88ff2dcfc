"""``python -m tf_retracing.lint PATH ...``"""

import sys

from tf_retracing.lint.cli import main

if __name__ == "__main__":
    sys.exit(main(prog="python -m tf_retracing.lint"))
