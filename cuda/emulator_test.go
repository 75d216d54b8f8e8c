package cuda

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/entropix-eval/entropix-eval/engine"
)

// emulator is a backend whose "device memory" is a Go byte slice and whose kernels
// are Go transliterations of the .cu files (same arguments, same layouts, float32
// where the kernel uses float and float64 where it uses double). Running the pipeline
// on it checks, without a GPU, everything the host does: buffer carving, weight
// fusion and packing, pointer arithmetic, the argument order of every launch, the
// top-K stage buffers, sub-batching and output assembly. With the cudasim build tag
// the same tests run on the .cu kernels themselves instead (sim_cudasim_test.go).
type emulator struct {
	mem []byte
}

const emuBase = 1 << 12 // device address of mem[0]; keeps 0 as the null pointer

func (e *emulator) alloc(bytes int64, what string) (dptr, error) {
	off := alignUp(int64(len(e.mem)), deviceAlign)
	if off+bytes > 1<<31 {
		return 0, fmt.Errorf("emulator: %s: %d bytes is more than a test needs", what, bytes)
	}
	e.mem = append(e.mem, make([]byte, off+max(bytes, deviceAlign)-int64(len(e.mem)))...)
	return dptr(emuBase + off), nil
}

func (e *emulator) bytes(p dptr, n int) []byte {
	off := int(p) - emuBase
	if p == 0 || off < 0 || off+n > len(e.mem) {
		panic(fmt.Sprintf("emulator: access [%#x, +%d) outside device memory", p, n))
	}
	return e.mem[off : off+n]
}

func (e *emulator) upload(dst dptr, b []byte) error   { copy(e.bytes(dst, len(b)), b); return nil }
func (e *emulator) download(b []byte, src dptr) error { copy(b, e.bytes(src, len(b))); return nil }
func (e *emulator) sync() error                       { return nil }

func (e *emulator) copyDevice(dst, src dptr, n int64) error {
	copy(e.bytes(dst, int(n)), e.bytes(src, int(n)))
	return nil
}

// Typed views of device memory (valid until the next alloc).
func (e *emulator) f32(p dptr, n int) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(&e.bytes(p, 4*n)[0])), n)
}
func (e *emulator) f64(p dptr, n int) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(&e.bytes(p, 8*n)[0])), n)
}
func (e *emulator) i32(p dptr, n int) []int32 {
	return unsafe.Slice((*int32)(unsafe.Pointer(&e.bytes(p, 4*n)[0])), n)
}
func (e *emulator) bf16(p dptr, i int) float32 {
	return engine.BF16ToF32(binary.LittleEndian.Uint16(e.bytes(p+dptr(2*i), 2)))
}
func (e *emulator) setBF16(p dptr, i int, v float32) {
	binary.LittleEndian.PutUint16(e.bytes(p+dptr(2*i), 2), engine.F32ToBF16(v))
}

func (e *emulator) u16(p dptr, n int) []uint16 {
	return unsafe.Slice((*uint16)(unsafe.Pointer(&e.bytes(p, 2*n)[0])), n)
}

// gemm runs the cuBLAS call the GPU backend would make through the reference GEMM,
// so the row-major to column-major mapping is what gets tested.
func (e *emulator) gemm(w, x, y dptr, rows, n, k int, beta float32) error {
	return rowMajorGemm(w, x, y, rows, n, k, beta).reference(e)
}

func (e *emulator) view(p dptr, n int64) ([]byte, error) {
	off := int64(p) - emuBase
	if p == 0 || off < 0 || off+n > int64(len(e.mem)) {
		return nil, fmt.Errorf("emulator: [%#x, +%d) outside device memory", uint64(p), n)
	}
	return e.mem[off : off+n], nil
}

// kargs decodes launch arguments in order.
type kargs struct {
	a *kernelArgs
	i int
}

func (k *kargs) next() uint64   { v := k.a.vals[k.i]; k.i++; return v }
func (k *kargs) ptr() dptr      { return dptr(k.next()) }
func (k *kargs) int() int       { return int(int32(uint32(k.next()))) }
func (k *kargs) long() int      { return int(int64(k.next())) }
func (k *kargs) float() float32 { return math.Float32frombits(uint32(k.next())) }
func (k *kargs) done(n string) bool {
	return k.i == k.a.n || panicf("emulator: %s: %d args, used %d", n, k.a.n, k.i)
}

func panicf(f string, a ...any) bool { panic(fmt.Sprintf(f, a...)) }

func (e *emulator) launch(name string, grid, gridY, block, smem int, a *kernelArgs) error {
	k := &kargs{a: a}
	switch name {
	case "embed_rows":
		table, ids, x, hidden := k.ptr(), k.ptr(), k.ptr(), k.int()
		k.done(name)
		idv, xv := e.i32(ids, grid), e.f32(x, grid*hidden)
		for t := 0; t < grid; t++ {
			for i := 0; i < hidden; i++ {
				xv[t*hidden+i] = e.bf16(table, int(idv[t])*hidden+i)
			}
		}
	case "rmsnorm_bf16":
		x, rows, w, out, hidden, eps := k.ptr(), k.ptr(), k.ptr(), k.ptr(), k.int(), k.float()
		k.done(name)
		wv := e.f32(w, hidden)
		for r := 0; r < grid; r++ {
			src := r
			if rows != 0 {
				src = int(e.i32(rows, grid)[r])
			}
			xr := e.f32(x+dptr(4*src*hidden), hidden)
			var ss float32
			for _, v := range xr {
				ss += v * v
			}
			inv := float32(1 / math.Sqrt(float64(ss/float32(hidden)+eps)))
			for i, v := range xr {
				e.setBF16(out, r*hidden+i, wv[i]*(v*inv))
			}
		}
	case "silu_mul":
		gu, out, inter, total := k.ptr(), k.ptr(), k.int(), k.long()
		k.done(name)
		g := e.f32(gu, 2*total)
		for idx := 0; idx < total; idx++ {
			t, i := idx/inter, idx%inter
			gv, uv := g[t*2*inter+i], g[t*2*inter+inter+i]
			e.setBF16(out, idx, gv/(1+float32(math.Exp(float64(-gv))))*uv)
		}
	case "add_bias":
		x, bias, n, total := k.ptr(), k.ptr(), k.int(), k.long()
		k.done(name)
		xv, bv := e.f32(x, total), e.f32(bias, n)
		for i := range xv {
			xv[i] += bv[i%n]
		}
	case "qkv_rope_cache":
		e.qkvRopeCache(grid, k)
	case "attention_cached":
		e.attention(grid, gridY, k)
	case "attention_combine":
		e.attentionCombine(grid, gridY, k)
	case "attn_head_stats":
		e.attnHeadStats(grid, gridY, k)
	case "attn_agreement":
		e.attnAgreement(grid, gridY, k)
	case "attn_agreement_finish":
		e.attnAgreementFinish(grid, k)
	case "logit_stats_part":
		logits, vocab, chunk, parts := k.ptr(), k.int(), k.int(), k.ptr()
		k.done(name)
		if grid != ceilDiv(vocab, chunk) {
			return fmt.Errorf("logit_stats_part: %d parts for %d entries in chunks of %d", grid, vocab, chunk)
		}
		pv := e.f64(parts, 4*grid*gridY)
		for r := 0; r < gridY; r++ {
			row := e.f32(logits+dptr(4*r*vocab), vocab)
			for b := 0; b < grid; b++ {
				got := mirrorLogitStatsPart(row[b*chunk : min(vocab, (b+1)*chunk)])
				copy(pv[4*(r*grid+b):], got[:])
			}
		}
	case "logit_stats_finish":
		parts, nParts, out := k.ptr(), k.int(), k.ptr()
		k.done(name)
		if block != 32 {
			return fmt.Errorf("logit_stats_finish: block %d, not one warp", block)
		}
		pv, o := e.f64(parts, 4*nParts*grid), e.f64(out, 3*grid)
		for r := 0; r < grid; r++ {
			rows := make([][4]float64, nParts)
			for b := range rows {
				copy(rows[b][:], pv[4*(r*nParts+b):])
			}
			o[3*r], o[3*r+1], o[3*r+2] = mirrorLogitStatsFinish(rows)
		}
	case "topk_select":
		vals, ids, n, kk, outVals, outIDs := k.ptr(), k.ptr(), k.int(), k.int(), k.ptr(), k.ptr()
		k.done(name)
		chunk := topkPerThread * block
		if smem != topkSharedBytes(kk) {
			return fmt.Errorf("topk_select: %d bytes of shared memory for k %d", smem, kk)
		}
		ov, oi := e.f32(outVals, gridY*grid*kk), e.i32(outIDs, gridY*grid*kk)
		for r := 0; r < gridY; r++ {
			rv := e.f32(vals+dptr(4*r*n), n)
			in := make([]ranked, n)
			for i := range in {
				in[i] = ranked{rv[i], int32(i)}
				if ids != 0 {
					in[i].id = e.i32(ids+dptr(4*r*n), n)[i]
				}
			}
			for c := 0; c < grid; c++ {
				best := mirrorTopKSelect(in[min(c*chunk, n):min((c+1)*chunk, n)], block, kk)
				for i, b := range best {
					o := (r*grid+c)*kk + i
					ov[o], oi[o] = b.v, b.id
				}
			}
		}
	default:
		return fmt.Errorf("emulator: no kernel %q", name)
	}
	return nil
}
