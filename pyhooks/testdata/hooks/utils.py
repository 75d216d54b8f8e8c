# Hooks for pyhooks' tests: one of each kind the bridge runs, and the faults
# it must survive.
import os
import sys
import time


def process_docs(dataset):
    def _add(doc):
        return {"question": doc["q"].strip() + "?", "n2": doc["n"] * 2}

    return dataset.filter(lambda d: d["n"] != 2).map(_add).select([1, 0])


def process_docs_batched(dataset):
    return dataset.map(lambda batch, idx: {"i": idx}, batched=True, with_indices=True, remove_columns="n")


def doc_to_text(doc):
    return "Q: " + doc["q"]


def doc_to_choice(doc):
    return [c.upper() for c in doc["choices"]]


def doc_to_target(doc):
    return doc["n"] % 3


class FirstWordFilter:
    def __init__(self, lowercase=False, fallback="[none]"):
        self.lowercase, self.fallback = lowercase, fallback

    def apply(self, resps, docs):
        def first(r):
            words = r.split()
            w = words[0] if words else self.fallback
            return w.lower() if self.lowercase else w

        return map(lambda rs: [first(r) for r in rs], resps)


def process_results(doc, results):
    hit = results[0].strip() == doc["answer"]
    return {"acc": int(hit), "per_word": [w == doc["answer"] for w in results[0].split()], "nan": float("nan")}


def exact_metric(references, predictions, ignore_case=False):
    a, b = references[0], predictions[0]
    if ignore_case:
        a, b = a.lower(), b.lower()
    return float(a == b)


def positional_metric(items):
    return items  # lm-eval's passthrough metrics take one positional list


def agg_flat_mean(items):
    flat = [x for it in items for x in it]
    return sum(flat) / len(flat)


NAMED = "a module-level value"


# --- faults -----------------------------------------------------------------

def raises(doc):
    if doc["n"] == 3:
        return {"a": 1}["missing"]
    return "ok"


def hangs(doc):
    time.sleep(3600)


def prints(doc):
    print("a hook printing to stdout", doc["n"])
    sys.stdout.write("{\"id\": 999, \"ok\": true, \"n\": 0}\n")
    os.write(1, b"raw bytes on fd 1\n")
    return "printed"


def allocates(doc):
    hog = []
    while True:
        hog.append(bytearray(64 << 20))


def dies(doc):
    os._exit(3)


def kills_itself(doc):
    os.kill(os.getpid(), 9)


def exits(doc):
    sys.exit("a hook called sys.exit")


def unserialisable(doc):
    return object()


# --- for the benchmarks: light hooks, so the bridge's own cost shows --------

def bench_process_docs(dataset):
    return dataset.map(lambda d: {"query": "Question: " + d["question"] + "\nAnswer:"})


def bench_process_results(doc, results):
    return {"exact_match": float(results[0].strip() == doc["answer"].split("####")[-1].strip())}
