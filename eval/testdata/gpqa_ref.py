# Runs lm-eval's GPQA process_docs (../shared/tasks/lm-eval/gpqa/generative)
# on the rows the Go test sends, after random.seed(seed) as simple_evaluate
# seeds it; Dataset.map as the datasets library applies it.
import importlib.util, json, random, sys

spec = importlib.util.spec_from_file_location("gpqa", sys.argv[1] + "/tasks/lm-eval/gpqa/generative/utils.py")
G = importlib.util.module_from_spec(spec)
spec.loader.exec_module(G)


class Rows:
    def __init__(self, rows):
        self.rows = rows

    def map(self, fn):
        return [{**r, **fn(r)} for r in self.rows]


for line in sys.stdin:
    c = json.loads(line)
    random.seed(c["seed"])
    try:
        out = {"ok": [[r["choices"], r["answer"]] for r in G.process_docs(Rows(c["rows"]))]}
    except Exception as e:
        out = {"err": type(e).__name__}
    print(json.dumps(out))
