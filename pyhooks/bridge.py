# entropix-eval's Python hook bridge: runs lm-eval task hooks (utils.py
# functions and classes named by `!function` in task YAML) for the Go harness.
# It is embedded in the entropix-eval binary and started as
#   python3 bridge.py [--memory-limit BYTES]
# Protocol (docs/python-hooks.md): JSON lines on stdin/stdout. A request is a
# header object {"id", "op", "n", ...} followed by n item lines; a reply is a
# header {"id", "ok": true, "n"} followed by n item lines (each json.dumps of
# one value), or {"id", "ok": false, "error": {...}}. Hooks cannot write to
# the protocol: file descriptor 1 is redirected to stderr before any hook is
# imported, and stdin is /dev/null for them.
import ast
import importlib.util
import json
import os
import sys
import traceback

PROTOCOL = 1
TRACEBACK_LINES = 8


def setup_channels():
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull)
    sys.stdout = sys.stderr
    return proto_in, proto_out


def set_memory_limit(argv):
    if "--memory-limit" in argv:
        limit = int(argv[argv.index("--memory-limit") + 1])
        if limit > 0:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


# --- modules, loaded as lm-eval's tasks/_yaml_loader.py loads them ---------

def module_name(path):
    marker = "/lm_eval/tasks/"
    if marker in path:
        rel = path[path.find(marker) + len(marker):]
        return "lm_eval.tasks." + rel.replace(".py", "").replace("/", ".")
    return os.path.splitext(path)[0]


def load_module(path):
    name = module_name(path)
    mtime = os.stat(path).st_mtime_ns
    mod = sys.modules.get(name)
    if mod is not None and getattr(mod, "__mtime__", None) == mtime:
        return mod
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load a module from {path}")
    mod = importlib.util.module_from_spec(spec)
    mod.__mtime__ = mtime
    spec.loader.exec_module(mod)
    sys.modules[name] = mod
    seed_numpy_once()
    return mod


def hook(req):
    h = req["hook"]
    mod = load_module(h["file"])
    try:
        return getattr(mod, h["function"])
    except AttributeError:
        raise AttributeError(f"{h['file']} defines no {h['function']}") from None


def defined_names(path):
    """Top-level names a module defines, read with ast (nothing is run):
    name -> "function", "class" or "name" (an assignment or import)."""
    with open(path, "rb") as f:
        tree = ast.parse(f.read(), filename=path)
    names = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names[node.name] = "function"
        elif isinstance(node, ast.ClassDef):
            names[node.name] = "class"
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        names[n.id] = "name"
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                names[a.asname or a.name.split(".")[0]] = "name"
    return names


# --- the stand-in for datasets.Dataset, when `datasets` is not importable ---

class StandInDataset:
    """The part of datasets.Dataset that lm-eval's process_docs hooks use:
    map (with_indices, batched, remove_columns), filter, select, len,
    iteration, ds[i], ds[a:b], ds["column"], column_names, to_list."""

    def __init__(self, rows, columns=None):
        cols = list(columns or [])
        for r in rows:
            for k in r:
                if k not in cols:
                    cols.append(k)
        # Rows in column order, a missing value None: what an Arrow table gives.
        self._rows = [{c: r.get(c) for c in cols} for r in rows]
        self._columns = cols

    @classmethod
    def from_list(cls, rows):
        return cls(rows)

    @property
    def column_names(self):
        return list(self._columns)

    @property
    def num_rows(self):
        return len(self._rows)

    def __len__(self):
        return len(self._rows)

    def __iter__(self):
        for r in self._rows:
            yield dict(r)

    def __getitem__(self, key):
        if isinstance(key, str):
            return [r.get(key) for r in self._rows]
        if isinstance(key, slice):
            rows = self._rows[key]
            return {c: [r.get(c) for r in rows] for c in self._columns}
        return dict(self._rows[key])

    def to_list(self):
        return [dict(r) for r in self._rows]

    def select(self, indices):
        return StandInDataset([self._rows[i] for i in indices], self._columns)

    def filter(self, function, with_indices=False, batched=False, **_):
        keep = []
        for i, r in enumerate(self._rows):
            args = (dict(r), i) if with_indices else (dict(r),)
            if batched:
                raise NotImplementedError("the datasets stand-in has no batched filter")
            if function(*args):
                keep.append(r)
        return StandInDataset(keep, self._columns)

    def map(self, function, with_indices=False, batched=False, batch_size=1000, remove_columns=None, **_):
        drop = [remove_columns] if isinstance(remove_columns, str) else list(remove_columns or [])
        out = []
        if batched:
            for start in range(0, len(self._rows), batch_size or len(self._rows) or 1):
                chunk = self._rows[start:start + (batch_size or len(self._rows))]
                batch = {c: [r.get(c) for r in chunk] for c in self._columns}
                idx = list(range(start, start + len(chunk)))
                res = function(batch, idx) if with_indices else function(batch)
                res = batch if res is None else {**batch, **res}
                n = len(next(iter(res.values()))) if res else 0
                out.extend({k: v[j] for k, v in res.items()} for j in range(n))
        else:
            for i, r in enumerate(self._rows):
                res = function(dict(r), i) if with_indices else function(dict(r))
                out.append(dict(r) if res is None else {**r, **res})
        cols = [c for c in self._columns if c not in drop]
        for r in out:
            for k in drop:
                r.pop(k, None)
            for k in r:
                if k not in cols:
                    cols.append(k)
        return StandInDataset([{k: v for k, v in r.items() if k not in drop} for r in out], cols)


def install_datasets_stand_in():
    """Without the datasets package, `import datasets` in a hook (most
    utils.py files import it, often only for annotations) gets a module whose
    Dataset is the stand-in; anything else it is asked for is an error that
    says so. Returns whether the real package is there."""
    try:
        import datasets  # noqa: F401

        return True
    except ImportError:
        pass
    import types

    mod = types.ModuleType("datasets")
    mod.Dataset = StandInDataset

    def missing(name):
        raise AttributeError(f"datasets.{name}: the datasets package is not installed in this interpreter; "
                             "entropix-eval's stand-in has only Dataset (see docs/python-hooks.md)")

    mod.__getattr__ = missing
    sys.modules["datasets"] = mod
    return False


REAL_DATASETS = None


def make_dataset(rows, columns):
    if not REAL_DATASETS:
        return StandInDataset(rows, columns)
    import datasets

    return datasets.Dataset.from_list([{c: r.get(c) for c in columns} for r in rows])


def dataset_rows(ds):
    if isinstance(ds, list):
        return ds, list(ds[0].keys()) if ds else []
    if isinstance(ds, StandInDataset):
        return ds._rows, ds.column_names
    return list(ds), list(ds.column_names)


# --- requests ---------------------------------------------------------------

class ItemError(Exception):
    def __init__(self, index, cause):
        super().__init__(str(cause))
        self.index, self.cause = index, cause


def each(items, fn):
    out = []
    for i, item in enumerate(items):
        try:
            out.append(fn(item))
        except Exception as e:
            raise ItemError(i, e) from e
    return out


def op_hello(req, items):
    info = {"protocol": PROTOCOL, "executable": sys.executable, "version": sys.version.split()[0],
            "implementation": sys.implementation.name}
    for mod in ("datasets", "lm_eval"):
        try:
            from importlib.metadata import version

            info[mod] = version(mod)
        except Exception:
            info[mod] = None
    if not REAL_DATASETS:
        info["datasets"] = None
    return [info]


def op_check(req, items):
    out = []
    for it in items:
        if it.get("want") == "registry_filter":
            try:
                registry_filter(it["function"])
                out.append(None)
            except Exception as e:
                out.append(str(e.args[0]) if e.args else repr(e))
            continue
        base = os.path.basename(it["file"])
        try:
            kind = defined_names(it["file"]).get(it["function"])
        except (OSError, SyntaxError, ValueError) as e:
            out.append(f"{type(e).__name__}: {e}")
            continue
        want = it.get("want")
        if kind is None:
            out.append(f"{base} defines no {it['function']}")
        elif want == "class" and kind == "function":
            out.append(f"{base}: {it['function']} is a function; a filter step names a class (lm-eval instantiates it)")
        elif want == "function" and kind == "class":
            out.append(f"{base}: {it['function']} is a class; a function is expected here")
        else:
            out.append(None)
    return out


def op_process_docs(req, items):
    fn = hook(req)
    ds = fn(make_dataset(items, req.get("columns") or []))
    rows, cols = dataset_rows(ds)
    return [{"columns": cols}] + rows


def op_doc_to(req, items):
    fn = hook(req)
    return each(items, fn)


def op_filter(req, items):
    cls = hook(req)
    f = cls(**(req.get("args") or {}))
    resps = [it["resps"] for it in items]
    docs = [it["doc"] for it in items]
    return list(f.apply(resps, docs))


def registry_filter(name):
    """A filter lm-eval registers by name (lm_eval/filters), from the
    interpreter's lm-eval installation."""
    try:
        import lm_eval.filters  # noqa: F401  (registers the filters)
        from lm_eval.api.registry import get_filter
    except ImportError as e:
        raise ImportError(f"filter {name} is lm-eval's: lm-eval is not importable in this interpreter ({e})") from None
    try:
        return get_filter(name)
    except KeyError:
        raise KeyError(f"lm-eval has no filter named {name}") from None


def op_registry_filter(req, items):
    f = registry_filter(req["hook"]["function"])(**(req.get("args") or {}))
    return list(f.apply([it["resps"] for it in items], [it["doc"] for it in items]))


def op_custom_filter(req, items):
    # lm-eval's CustomFilter: filter_fn(resps, docs) for the whole list.
    fn = hook(req)
    return list(fn([it["resps"] for it in items], [it["doc"] for it in items]))


def op_process_results(req, items):
    fn = hook(req)
    return each(items, lambda it: fn(it["doc"], it["results"]))


def op_metric(req, items):
    fn, kwargs = hook(req), req.get("args") or {}

    def call(it):
        # ConfigurableTask.process_results' generate_until path.
        try:
            return fn(references=[it["gold"]], predictions=[it["result"]], **kwargs)
        except TypeError:
            return fn([it["gold"], it["result"]])

    return each(items, call)


def op_aggregation(req, items):
    return [hook(req)(items)]


OPS = {"hello": op_hello, "check": op_check, "process_docs": op_process_docs, "doc_to": op_doc_to,
       "filter": op_filter, "registry_filter": op_registry_filter, "custom_filter": op_custom_filter, "process_results": op_process_results, "metric": op_metric,
       "aggregation": op_aggregation}


def to_json(v):
    def default(o):
        for attr in ("tolist", "item"):  # numpy scalars and arrays
            if hasattr(o, attr):
                return getattr(o, attr)()
        if isinstance(o, (set, frozenset)):
            return sorted(o, key=repr)
        if dataclass_fields(o):
            return {f: getattr(o, f) for f in dataclass_fields(o)}
        raise TypeError(f"a hook returned {type(o).__name__}, which has no JSON form")

    return json.dumps(v, ensure_ascii=False, default=default)


def dataclass_fields(o):
    return list(getattr(o, "__dataclass_fields__", {}) or {})


def error_reply(rid, e, index=None):
    tb = traceback.format_exception(type(e), e, e.__traceback__)
    lines = "".join(tb).rstrip("\n").split("\n")
    return {"id": rid, "ok": False, "error": {"type": type(e).__name__, "message": str(e),
            "traceback": "\n".join(lines[-TRACEBACK_LINES:]), "index": index}}


def serve(proto_in, proto_out):
    def send(obj, lines=()):
        proto_out.write(json.dumps(obj).encode() + b"\n")
        for line in lines:
            proto_out.write(line.encode("utf-8", "surrogatepass") + b"\n")
        proto_out.flush()

    while True:
        header = proto_in.readline()
        if not header:
            return
        req = json.loads(header)
        raw = [proto_in.readline() for _ in range(req.get("n", 0))]
        rid = req.get("id")
        try:
            items = [json.loads(line) for line in raw]
            out = OPS[req["op"]](req, items)
            lines = [to_json(v) for v in out]
        except ItemError as e:
            send(error_reply(rid, e.cause, e.index))
            continue
        except BaseException as e:  # a hook's SystemExit or KeyboardInterrupt is its error too
            send(error_reply(rid, e))
            continue
        send({"id": rid, "ok": True, "n": len(lines)}, lines)


def seed_like_lm_eval():
    """simple_evaluate's seeds: random 0 here, numpy 1234 once a hook's
    module has imported numpy (importing it for every run would cost more
    than many runs' hooks; a draw at a module's import time is not seeded),
    torch not at all (a hook drawing from torch's global generator is not
    reproduced). Hooks such as GPQA's process_docs shuffle with the global
    random module, so their output depends on the order of calls."""
    import random

    random.seed(0)


NUMPY_SEEDED = False


def seed_numpy_once():
    global NUMPY_SEEDED
    if not NUMPY_SEEDED and "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(1234)
        NUMPY_SEEDED = True


if __name__ == "__main__":
    set_memory_limit(sys.argv)
    channels = setup_channels()
    REAL_DATASETS = install_datasets_stand_in()
    seed_like_lm_eval()
    serve(*channels)
