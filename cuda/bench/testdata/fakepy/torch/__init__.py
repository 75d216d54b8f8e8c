"""Stands in for the parts of torch that hf_peer.py uses (peer_test.go)."""
__version__ = "0.0+stand-in"


class _DType:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name


bfloat16 = _DType("bfloat16")
float32 = _DType("float32")


class _Tensor:
    def __init__(self, shape):
        self.shape = shape

    def cuda(self):
        return self


def randint(low, high, size, generator=None):
    return _Tensor(size)


def ones_like(t):
    return _Tensor(t.shape)


class Generator:
    def manual_seed(self, seed):
        return self


class _Mode:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def inference_mode():
    return _Mode()


class cuda:
    class OutOfMemoryError(RuntimeError):
        pass

    @staticmethod
    def synchronize():
        pass

    @staticmethod
    def get_device_name(i):
        return "Stand-in GPU"

    @staticmethod
    def empty_cache():
        pass
