"""Stands in for transformers in hf_peer.py's test (peer_test.go): the version is
$FAKE_TRANSFORMERS_VERSION, and from_pretrained honours only the dtype argument that
version takes (`dtype` from 4.56, `torch_dtype` before; $FAKE_DTYPE_ARGUMENT overrides),
loading float32 weights when given another, as an argument it ignores would."""
import os
import sys
import time

import torch

__version__ = os.environ.get("FAKE_TRANSFORMERS_VERSION", "5.17.0")


class _Config:
    eos_token_id = [7, 8]
    vocab_size = 100
    _attn_implementation = "sdpa"


class _Model:
    def __init__(self, dtype):
        self.dtype = dtype
        self.config = _Config()

    def cuda(self):
        return self

    def eval(self):
        return self

    def generate(self, ids, attention_mask, max_new_tokens, min_new_tokens, do_sample, pad_token_id):
        assert max_new_tokens == min_new_tokens and not do_sample and pad_token_id == 7
        assert attention_mask.shape == ids.shape
        time.sleep(0.002 * (1 + max_new_tokens))


class AutoModelForCausalLM:
    @staticmethod
    def from_pretrained(path, attn_implementation=None, **kw):
        assert attn_implementation == "sdpa"
        major, minor = (int(x) for x in __version__.split(".")[:2])
        takes = os.environ.get("FAKE_DTYPE_ARGUMENT") or ("dtype" if (major, minor) >= (4, 56) else "torch_dtype")
        print("from_pretrained got %s" % sorted(kw), file=sys.stderr)
        return _Model(kw.get(takes, torch.float32))
