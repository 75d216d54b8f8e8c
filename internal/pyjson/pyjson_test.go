package pyjson

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The wants below are written by hand from CPython's json module
// (Lib/json/encoder.py): separators (', ', ': ') without indent and
// (',', ': ') with it, float.__repr__ for floats, ESCAPE_DCT for strings.

func TestDumpsOneLine(t *testing.T) {
	doc := NewDict("question", "café ≥ 3 <b>&amp;</b>\u2028\u2029", "answer", "#### 4",
		"meta", NewDict("text", "t", "answer_start", 3), "spans", []any{NewDict("z", 1.5, "a", nil)})
	line := NewDict("doc_id", 7, "doc", doc, "target", "4", "resps", [][]string{{"a\nb"}},
		"filtered_resps", []string{"4"}, "metrics", []string{"exact_match"},
		"exact_match", 1.0, "tenth", 0.1, "big", 1e16, "small", 1e-5, "whole", 1e15,
		"nan", math.NaN(), "inf", math.Inf(1), "ninf", math.Inf(-1), "ok", true, "no", false, "none", nil,
		"empty_list", []any{}, "empty_dict", NewDict(), "ints", []int{-3, 0}, "u", uint64(18446744073709551615))
	got, err := Dumps(line)
	require.NoError(t, err)
	want := `{"doc_id": 7, "doc": {"question": "café ≥ 3 <b>&amp;</b>` + "\u2028\u2029" + `", "answer": "#### 4", ` +
		`"meta": {"text": "t", "answer_start": 3}, "spans": [{"z": 1.5, "a": null}]}, "target": "4", ` +
		`"resps": [["a\nb"]], "filtered_resps": ["4"], "metrics": ["exact_match"], ` +
		`"exact_match": 1.0, "tenth": 0.1, "big": 1e+16, "small": 1e-05, "whole": 1000000000000000.0, ` +
		`"nan": NaN, "inf": Infinity, "ninf": -Infinity, "ok": true, "no": false, "none": null, ` +
		`"empty_list": [], "empty_dict": {}, "ints": [-3, 0], "u": 18446744073709551615}`
	assert.Equal(t, want, string(got))
}

func TestDumpsIndent(t *testing.T) {
	v := NewDict("results", NewDict("gsm8k", NewDict("alias", "gsm8k", "exact_match,strict-match", 0.25,
		"exact_match_stderr,strict-match", "N/A")),
		"group_subtasks", NewDict(), "batch_sizes", []int{}, "until", []string{"Q:", "</s>"}, "date", 1763916000.0)
	got, err := DumpsIndent(v, 2)
	require.NoError(t, err)
	want := strings.Join([]string{
		`{`,
		`  "results": {`,
		`    "gsm8k": {`,
		`      "alias": "gsm8k",`,
		`      "exact_match,strict-match": 0.25,`,
		`      "exact_match_stderr,strict-match": "N/A"`,
		`    }`,
		`  },`,
		`  "group_subtasks": {},`,
		`  "batch_sizes": [],`,
		`  "until": [`,
		`    "Q:",`,
		`    "</s>"`,
		`  ],`,
		`  "date": 1763916000.0`,
		`}`}, "\n")
	assert.Equal(t, want, string(got))
}

// transformers' to_json_string, json.dumps(config, indent=2, sort_keys=True):
// a Go map's keys sorted, ints, float reprs, null, an empty list, and
// ensure_ascii's escapes of non-ASCII runes (a surrogate pair above the BMP).
func TestDumpsIndentASCIIConfig(t *testing.T) {
	config := map[string]any{
		"vocab_size": 512, "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "attention_dropout": 0.0,
		"eos_token_id": []int32{2, 3}, "bos_token_id": int32(1), "rope_scaling": map[string]any{"factor": 32.0, "rope_type": "llama3"},
		"tie_word_embeddings": false, "pad_token_id": nil, "architectures": []string{"LlamaForCausalLM"}, "name": "é😀", "empty": []int{},
	}
	got, err := DumpsIndentASCII(config, 2)
	require.NoError(t, err)
	want := strings.Join([]string{
		`{`,
		`  "architectures": [`,
		`    "LlamaForCausalLM"`,
		`  ],`,
		`  "attention_dropout": 0.0,`,
		`  "bos_token_id": 1,`,
		`  "empty": [],`,
		`  "eos_token_id": [`,
		`    2,`,
		`    3`,
		`  ],`,
		`  "name": "\u00e9\ud83d\ude00",`,
		`  "pad_token_id": null,`,
		`  "rms_norm_eps": 1e-05,`,
		`  "rope_scaling": {`,
		`    "factor": 32.0,`,
		`    "rope_type": "llama3"`,
		`  },`,
		`  "rope_theta": 10000.0,`,
		`  "tie_word_embeddings": false,`,
		`  "vocab_size": 512`,
		`}`}, "\n")
	assert.Equal(t, want, string(got))
}

// Go maps have no order: their keys are written sorted, as encoding/json
// does, and a Set on a present key keeps its place as dict assignment does.
func TestDictOrderAndGoMaps(t *testing.T) {
	d := NewDict("b", 1, "a", 2).Set("b", 3).Set("c", map[string]any{"y": 1, "x": []string(nil)})
	assert.Equal(t, []string{"b", "a", "c"}, d.Keys())
	got, err := Dumps(d)
	require.NoError(t, err)
	assert.Equal(t, `{"b": 3, "a": 2, "c": {"x": [], "y": 1}}`, string(got))
	_, err = Dumps(map[int]string{1: "x"})
	assert.Error(t, err)
	_, err = Dumps(NewDict("f", func() {}))
	assert.ErrorContains(t, err, `"f"`)
}

// Decode keeps what json.loads keeps: key order, a repeated key in its first
// place with its last value, and each number's int or float kind.
func TestDecodeRoundTrip(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"q":"Q?","a":"A","q":"Q2"}`, `{"q": "Q2", "a": "A"}`},
		{`{"n":3,"neg0":-0,"x":0.5,"big":1e16,"e":2E3,"whole":2.0,"huge":1e400,"long":123456789012345678901234567890}`,
			`{"n": 3, "neg0": 0, "x": 0.5, "big": 1e+16, "e": 2000.0, "whole": 2.0, "huge": Infinity, "long": 123456789012345678901234567890}`},
		{`[{"z":{}},[],"\u2028\u003c"]`, `[{"z": {}}, [], "` + "\u2028<" + `"]`},
	} {
		v, err := Decode([]byte(tc.in))
		require.NoError(t, err, tc.in)
		got, err := Dumps(v)
		require.NoError(t, err)
		assert.Equal(t, tc.want, string(got), tc.in)
	}
	_, err := Decode([]byte(`{"a":1} {}`))
	assert.Error(t, err)
	_, err = Decode([]byte(`{"a":`))
	assert.Error(t, err)
	_, err = Dumps(json.Number("1x"))
	assert.Error(t, err)
}

// json.loads reads NaN, Infinity and -Infinity where a value may stand, and
// nowhere else (CPython's scanner: "NaNx" is extra data, "[1NaN]" a missing
// delimiter, "-NaN" and "nan" no value); json.dumps writes them back so.
func TestDecodeNonFinite(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`[NaN, Infinity, -Infinity]`, `[NaN, Infinity, -Infinity]`},
		{`NaN`, `NaN`},
		{`[ NaN ]`, `[NaN]`},
		{`{"s":"x\"NaN","t":NaN,"u":"Infinity"}`, `{"s": "x\"NaN", "t": NaN, "u": "Infinity"}`},
		{"{\"a\":\n-Infinity\r\n}", `{"a": -Infinity}`},
	} {
		v, err := Decode([]byte(tc.in))
		require.NoError(t, err, tc.in)
		got, err := Dumps(v)
		require.NoError(t, err)
		assert.Equal(t, tc.want, string(got), tc.in)
	}
	v, err := Decode([]byte(`[NaN,Infinity,-Infinity,0]`))
	require.NoError(t, err)
	list := v.([]any)
	assert.True(t, math.IsNaN(list[0].(float64)))
	assert.Equal(t, []any{math.Inf(1), math.Inf(-1), json.Number("0")}, list[1:])
	for _, in := range []string{`NaNx`, `[1NaN]`, `-NaN`, `[NaN1]`, `nan`, `[Infinity-1]`, `{"a" NaN}`, `[--Infinity]`, `[Inf]`} {
		_, err := Decode([]byte(in))
		assert.Error(t, err, in)
	}
	in := []byte(`{"a":NaN,"b":[Infinity,-Infinity],"c":"NaN"}`)
	assert.Equal(t, `{"a":0  ,"b":[0       ,-0       ],"c":"NaN"}`, string(Standard(in)))
	plain := []byte(`{"c":"NaN"}`)
	assert.Same(t, &plain[0], &Standard(plain)[0], "text without the literals is returned as is")
}

func TestStringEscapes(t *testing.T) {
	for _, tc := range []struct{ in, want, ascii string }{
		{"plain", `"plain"`, `"plain"`},
		{`q "x" \ y`, `"q \"x\" \\ y"`, `"q \"x\" \\ y"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`, `"\b\f\n\r\t"`},
		{"\x00\x01\x0b\x1f\x7f", `"\u0000\u0001\u000b\u001f` + "\x7f" + `"`, `"\u0000\u0001\u000b\u001f\u007f"`},
		{"<>&'/", `"<>&'/"`, `"<>&'/"`}, // no HTML escaping
		{"Janet\u2019s", "\"Janet\u2019s\"", `"Janet\u2019s"`},
		{"é ≥\u2028\u2029", "\"é ≥\u2028\u2029\"", `"\u00e9 \u2265\u2028\u2029"`},
		{"😀", `"😀"`, `"\ud83d\ude00"`},
		{"a\xffb", "\"a\uFFFDb\"", `"a\ufffdb"`},
	} {
		assert.Equal(t, tc.want, string(AppendString(nil, tc.in)), "%q", tc.in)
		assert.Equal(t, tc.ascii, string(AppendASCIIString(nil, tc.in)), "%q", tc.in)
	}
}

func TestAppendFloat(t *testing.T) {
	for f, want := range map[float64]string{
		1: "1.0", -2.5: "-2.5", 0.1: "0.1", 1e-4: "0.0001", 1.5e-5: "1.5e-05", 0: "0.0",
		123456789012345680: "1.2345678901234568e+17", 1e15: "1000000000000000.0", 1e16: "1e+16",
		math.Inf(1): "Infinity", math.Inf(-1): "-Infinity",
	} {
		assert.Equal(t, want, string(AppendFloat(nil, f)), "%v", f)
	}
	assert.Equal(t, "NaN", string(AppendFloat(nil, math.NaN())))
	assert.Equal(t, "-0.0", string(AppendFloat(nil, math.Copysign(0, -1))))
}

// The reference escapers are CPython's, rule for rule: ESCAPE and
// ESCAPE_ASCII are json.encoder's patterns, escapeDCT its ESCAPE_DCT (the
// seven named escapes, then setdefault('\\u%04x') for every chr(0..0x1f)),
// and the ASCII one's surrogate-pair arithmetic is py_encode_basestring_ascii's.
var (
	pyESCAPE      = regexp.MustCompile(`[\x00-\x1f\\"\x08\x0c\n\r\t]`)
	pyESCAPEASCII = regexp.MustCompile(`([\\"]|[^ -~])`)
	escapeDCT     = func() map[string]string {
		m := map[string]string{`\`: `\\`, `"`: `\"`, "\b": `\b`, "\f": `\f`, "\n": `\n`, "\r": `\r`, "\t": `\t`}
		for i := 0; i < 0x20; i++ {
			if _, ok := m[string(rune(i))]; !ok {
				m[string(rune(i))] = fmt.Sprintf(`\u%04x`, i)
			}
		}
		return m
	}()
)

func pyEncodeBasestring(s string) string {
	return `"` + pyESCAPE.ReplaceAllStringFunc(s, func(m string) string { return escapeDCT[m] }) + `"`
}

func pyEncodeBasestringASCII(s string) string {
	return `"` + pyESCAPEASCII.ReplaceAllStringFunc(s, func(m string) string {
		if e, ok := escapeDCT[m]; ok {
			return e
		}
		n := []rune(m)[0]
		if n < 0x10000 {
			return fmt.Sprintf(`\u%04x`, n)
		}
		n -= 0x10000
		return fmt.Sprintf(`\u%04x\u%04x`, 0xd800|(n>>10)&0x3ff, 0xdc00|n&0x3ff)
	}) + `"`
}

func FuzzStringEscaper(f *testing.F) {
	for _, s := range []string{"", "plain", "\x00\x1f\x7f", `"\`, "<>&", "\u2028\u2029", "é😀", "a\xffb\xc3", "\ud7ff\ue000\U0010ffff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// A Python str holds code points; each byte of invalid UTF-8 is one U+FFFD.
		py := string([]rune(s))
		got := string(AppendString(nil, s))
		if want := pyEncodeBasestring(py); got != want {
			t.Fatalf("ensure_ascii=False %q: got %s, CPython's rules give %s", s, got, want)
		}
		ascii := string(AppendASCIIString(nil, s))
		if want := pyEncodeBasestringASCII(py); ascii != want {
			t.Fatalf("ensure_ascii=True %q: got %s, CPython's rules give %s", s, ascii, want)
		}
		for _, q := range []string{got, ascii} {
			var back string
			if err := json.Unmarshal([]byte(q), &back); err != nil || back != py {
				t.Fatalf("%s reads back as %q (%v), want %q", q, back, err, py)
			}
		}
		for i := 0; i < len(ascii); i++ {
			if ascii[i] < 0x20 || ascii[i] > 0x7e {
				t.Fatalf("ensure_ascii=True output %q has byte %#x", ascii, ascii[i])
			}
		}
	})
}

// Decode reads what encoding/json reads, and Dumps writes it back as JSON
// that reads as the same values (keys, strings, numbers by value).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,{"b":null}],"a":true}`, `"\u2028<"`, `[1e16,-0,0.1]`, `{"x":"\ud83d\ude00"}`, `1e400`, `{`, `[1,]`, `[NaN,-Infinity]`, `{"a":"\"NaN",Infinity}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Decode(b)
		var want any
		goErr := json.Unmarshal(b, &want)
		if goErr == nil {
			require.Equal(t, b, Standard(b), "JSON holds no literal Standard replaces")
		}
		if err != nil {
			if goErr == nil {
				t.Fatalf("Decode refused %q: %v; encoding/json reads it", b, err)
			}
			return
		}
		out, err := Dumps(v)
		if err != nil {
			t.Fatalf("Dumps of decoded %q: %v", b, err)
		}
		if goErr != nil {
			return // a number out of float64 range: Python reads it as inf
		}
		var got any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("Dumps wrote %q for %q: %v", out, b, err)
		}
		assert.Equal(t, want, got, "%q → %q", b, out)
	})
}
