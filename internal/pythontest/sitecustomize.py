# Test scaffolding for pyhooks' tests with ../shared: stands in for the user's
# lm-eval installation. lm_eval is assembled from ../shared/tasks/lm-eval-core
# (lm-eval's own __init__.py needs an installed distribution) and
# lm_eval.tasks from ../shared/tasks/lm-eval, as ../shared's hooks_expected.py
# does; lm_eval.api.metrics imports sacrebleu, which Debian lacks and these
# tests never call, so an empty module stands in for it. Debian's nltk 3.8 fails IFEval's nltk >= 3.9.1 guard,
# so importlib.metadata answers 3.9.1, again as hooks_expected.py does.
import importlib.metadata
import os
import sys
import types

_core = os.environ.get("ENTROPIX_TEST_LMEVAL_CORE")
_tasks = os.environ.get("ENTROPIX_TEST_LMEVAL_TASKS")
if _core and _tasks:
    _lm = types.ModuleType("lm_eval")
    _lm.__path__ = [_core]
    sys.modules["lm_eval"] = _lm
    _lt = types.ModuleType("lm_eval.tasks")
    _lt.__path__ = [_tasks, os.path.join(_core, "tasks")]
    sys.modules["lm_eval.tasks"] = _lt
    try:
        import sacrebleu  # noqa: F401
    except ImportError:
        sys.modules["sacrebleu"] = types.ModuleType("sacrebleu")

_real_version = importlib.metadata.version
_answers = {"nltk": "3.9.1"} if _core else {}
importlib.metadata.version = lambda name: _answers.get(name) or _real_version(name)
