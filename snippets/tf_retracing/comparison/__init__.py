"""Compare a call with earlier traces and say what changed and what to try.

Works only on the TensorFlow-free descriptions of ``tf_retracing.trace_description``;
``tf_retracing._internals`` builds them from TensorFlow's trace types. This module must
never import TensorFlow: its tests build descriptions by hand.
"""

from __future__ import annotations

# Relative imports: its tests load it without the package (whose __init__ imports TF).
# What code outside the package uses of the parts: the explainer, and tests.
from .advice import Change as Change
from .advice import Fixes as Fixes
from .advice import gone_instance_reason as gone_instance_reason
from .advice import new_instance_reason as new_instance_reason
from .advice import spec as spec
from .context import _context_change as _context_change
from .describing import describe as describe
from .explaining import changes as changes
from .explaining import explain as explain
from .grouping import group_message as group_message
from .grouping import node_at as node_at
from .matching import accepts as accepts
