package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// bpeModel is the "BPE" model of tokenizer.json: byte-level vocabularies (GPT-2,
// Llama 3, SmolLM2, Qwen2) and SentencePiece-style ones with byte fallback
// (Llama 2, Mistral, Phi-3). It reproduces the Rust library's merge order exactly:
// always the lowest-ranked adjacent pair, leftmost first.
type bpeModel struct {
	vocab       map[string]int32
	tokens      []string // id → token; only meaningful where hasToken is set
	hasToken    []bool
	merges      map[uint64]mergeResult
	unkToken    string
	hasUnk      bool
	fuseUnk     bool
	byteFallbk  bool
	ignoreMerge bool
	prefix      string // continuing_subword_prefix
	suffix      string // end_of_word_suffix
	// byteTokenIDs holds the id of "<0xNN>" per byte, or -1 (byte fallback).
	byteTokenIDs [256]int32

	// splitsAtMetaspace is set when no token has "▁" after another character,
	// so no merge can cross the start of a "▁word": SentencePiece-style input
	// (one long segment, no pre-tokenizer) can then be cut into words and use
	// the word cache. The result is identical because BPE merges never
	// interact across a boundary no token spans.
	splitsAtMetaspace bool

	cache    wordCache // words as the model sees them
	rawCache wordCache // byte-level words under their raw text
}

const metaspace = "\u2581"

type mergeResult struct {
	rank  int32
	newID int32
}

type bpeSchema struct {
	Type                    *string          `json:"type"`
	Dropout                 *float64         `json:"dropout"`
	UnkToken                *string          `json:"unk_token"`
	ContinuingSubwordPrefix *string          `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string          `json:"end_of_word_suffix"`
	FuseUnk                 bool             `json:"fuse_unk"`
	ByteFallback            bool             `json:"byte_fallback"`
	IgnoreMerges            bool             `json:"ignore_merges"`
	Vocab                   map[string]int32 `json:"vocab"`
	Merges                  json.RawMessage  `json:"merges"`
}

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// newModel builds the model of tokenizer.json. Old files (GPT-2) carry no "type"
// tag; like the Rust library we then accept the BPE fields.
func newModel(raw json.RawMessage) (*bpeModel, error) {
	if isNull(raw) {
		return nil, fmt.Errorf("model: missing")
	}
	var s bpeSchema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if s.Type != nil && *s.Type != "BPE" {
		return nil, fmt.Errorf("model type %q: unsupported (only BPE)", *s.Type)
	}
	if s.Type == nil && s.Vocab == nil {
		return nil, fmt.Errorf("model: no \"type\" and no BPE vocab")
	}
	if s.Dropout != nil && *s.Dropout > 0 {
		return nil, fmt.Errorf("model BPE: dropout %v: unsupported (encoding would be random)", *s.Dropout)
	}
	m := &bpeModel{
		vocab:       s.Vocab,
		fuseUnk:     s.FuseUnk,
		byteFallbk:  s.ByteFallback,
		ignoreMerge: s.IgnoreMerges,
	}
	if s.UnkToken != nil {
		m.unkToken, m.hasUnk = *s.UnkToken, true
	}
	if s.ContinuingSubwordPrefix != nil {
		m.prefix = *s.ContinuingSubwordPrefix
	}
	if s.EndOfWordSuffix != nil {
		m.suffix = *s.EndOfWordSuffix
	}
	maxID := int32(-1)
	for tok, id := range m.vocab {
		if id < 0 {
			return nil, fmt.Errorf("model BPE: vocab %q has negative id %d", tok, id)
		}
		maxID = max(maxID, id)
	}
	// Real vocabularies are dense; a far larger id is a corrupt file, and the
	// id → token table would be huge.
	if int(maxID) >= len(m.vocab)+1<<20 {
		return nil, fmt.Errorf("model BPE: vocab id %d is far beyond the %d entries", maxID, len(m.vocab))
	}
	m.tokens = make([]string, maxID+1)
	m.hasToken = make([]bool, maxID+1)
	for tok, id := range m.vocab {
		m.tokens[id], m.hasToken[id] = tok, true
	}
	for b := range m.byteTokenIDs {
		m.byteTokenIDs[b] = -1
		if id, ok := m.vocab[fmt.Sprintf("<0x%02X>", b)]; ok {
			m.byteTokenIDs[b] = id
		}
	}
	pairs, err := parseMerges(s.Merges)
	if err != nil {
		return nil, err
	}
	m.merges = make(map[uint64]mergeResult, len(pairs))
	for rank, p := range pairs {
		a, okA := m.vocab[p[0]]
		b, okB := m.vocab[p[1]]
		if !okA || !okB {
			return nil, fmt.Errorf("model BPE: merge %d %q: token not in vocab", rank, p[0]+" "+p[1])
		}
		merged := p[0] + strings.TrimPrefix(p[1], m.prefix)
		id, ok := m.vocab[merged]
		if !ok {
			return nil, fmt.Errorf("model BPE: merge %d %q: result %q not in vocab", rank, p[0]+" "+p[1], merged)
		}
		key := pairKey(a, b)
		if _, dup := m.merges[key]; !dup { // the first (best) rank wins, as in Rust
			m.merges[key] = mergeResult{rank: int32(rank), newID: id}
		}
	}
	m.splitsAtMetaspace = canSplitAtMetaspace(m.vocab)
	m.cache.init()
	m.rawCache.init()
	return m, nil
}

func canSplitAtMetaspace(vocab map[string]int32) bool {
	if _, ok := vocab[metaspace]; !ok {
		return false // an unknown "▁" could fuse with a neighbouring unk
	}
	for tok := range vocab {
		if strings.Contains(strings.TrimLeft(tok, metaspace), metaspace) {
			return false
		}
	}
	return true
}

// appendMetaspaceWords cuts s before every "▁" that follows another character.
func appendMetaspaceWords(dst []piece, p piece) []piece {
	s := p.s
	start := 0
	for i := 1; i < len(s); {
		j := strings.Index(s[i:], metaspace)
		if j < 0 {
			break
		}
		k := i + j
		if !strings.HasSuffix(s[:k], metaspace) {
			dst = append(dst, piece{s: s[start:k], first: p.first && start == 0})
			start = k
		}
		i = k + len(metaspace)
	}
	return append(dst, piece{s: s[start:], first: p.first && start == 0})
}

// parseMerges accepts both serializations: "a b" strings and ["a", "b"] pairs.
func parseMerges(raw json.RawMessage) ([][2]string, error) {
	if isNull(raw) {
		return nil, nil
	}
	var pairs [][2]string
	if pairForm(raw) {
		if err := json.Unmarshal(raw, &pairs); err != nil {
			return nil, fmt.Errorf("model BPE: merges: %w", err)
		}
		return pairs, nil
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		return nil, fmt.Errorf("model BPE: merges: want [\"a b\", ...] or [[\"a\", \"b\"], ...]: %w", err)
	}
	pairs = make([][2]string, len(lines))
	for i, line := range lines {
		a, b, ok := strings.Cut(line, " ")
		if !ok || strings.Contains(b, " ") {
			return nil, fmt.Errorf("model BPE: merge %d %q: want two tokens separated by one space", i, line)
		}
		pairs[i] = [2]string{a, b}
	}
	return pairs, nil
}

// pairForm reports whether merges are serialized as ["a", "b"] pairs (the first
// element is itself an array), so the large list is decoded only once.
func pairForm(raw json.RawMessage) bool {
	s := strings.TrimLeft(string(raw), " \t\r\n")
	s = strings.TrimLeft(strings.TrimPrefix(s, "["), " \t\r\n")
	return strings.HasPrefix(s, "[")
}

func (m *bpeModel) idToToken(id int32) (string, bool) {
	if id < 0 || int(id) >= len(m.tokens) || !m.hasToken[id] {
		return "", false
	}
	return m.tokens[id], true
}

// tokenizePiece appends the ids of one pre-tokenized word, mapping it to the
// byte-level alphabet first when the pre-tokenizer left that to the model.
func (m *bpeModel) tokenizePiece(dst []int32, p piece, sc *scratch) ([]int32, error) {
	if !p.byteLevel {
		if ids, ok := m.cache.get(p.s); ok {
			return append(dst, ids...), nil
		}
		return m.tokenize(dst, p.s, &m.cache, p.s, sc)
	}
	// Byte-level words are cached under their raw text, so a hit skips the
	// mapping and the lookup in the (large) vocabulary.
	if ids, ok := m.rawCache.get(p.s); ok {
		return append(dst, ids...), nil
	}
	sc.word = appendByteLevel(sc.word[:0], p.s)
	return m.tokenize(dst, string(sc.word), &m.rawCache, p.s, sc)
}

// tokenize appends the ids of one word that missed the cache and stores them
// in cache under key.
func (m *bpeModel) tokenize(dst []int32, word string, cache *wordCache, key string, sc *scratch) ([]int32, error) {
	if word == "" {
		return dst, nil
	}
	start := len(dst)
	if id, ok := m.vocab[word]; ok && m.ignoreMerge {
		dst = append(dst, id)
	} else {
		syms, err := m.initialSymbols(sc.symbols[:0], word, sc)
		if err != nil {
			return dst, err
		}
		syms = m.mergeAll(syms, sc)
		sc.symbols = syms
		for i := 0; i >= 0 && i < len(syms); i = int(syms[i].next) {
			dst = append(dst, syms[i].id)
		}
	}
	cache.put(key, dst[start:])
	return dst, nil
}

// initialSymbols splits word into characters (with prefix/suffix, byte fallback
// and unk handling exactly as the Rust merge_word), linked as a list.
func (m *bpeModel) initialSymbols(syms []symbol, word string, sc *scratch) ([]symbol, error) {
	add := func(id int32) {
		n := int32(len(syms))
		syms = append(syms, symbol{id: id, prev: n - 1, next: n + 1})
	}
	unkID, pendingUnk := int32(-1), false
	for i := 0; i < len(word); {
		_, size := utf8.DecodeRuneInString(word[i:]) // Encode made the text valid UTF-8
		end := i + size
		s := word[i:end]
		if (i > 0 && m.prefix != "") || (end == len(word) && m.suffix != "") {
			buf := sc.text[:0]
			if i > 0 {
				buf = append(buf, m.prefix...)
			}
			buf = append(buf, s...)
			if end == len(word) {
				buf = append(buf, m.suffix...)
			}
			sc.text = buf
			s = string(buf)
		}
		i = end
		if id, ok := m.vocab[s]; ok {
			if pendingUnk {
				add(unkID)
				pendingUnk = false
			}
			add(id)
			continue
		}
		if m.byteFallbk && m.allBytesKnown(s) {
			// Rust adds the byte tokens without flushing a pending unk first.
			for j := 0; j < len(s); j++ {
				add(m.byteTokenIDs[s[j]])
			}
			continue
		}
		if !m.hasUnk {
			continue // no unk token: the character is dropped, as in Rust
		}
		id, ok := m.vocab[m.unkToken]
		if !ok {
			return nil, fmt.Errorf("model BPE: unk token %q is not in the vocab", m.unkToken)
		}
		if pendingUnk && !m.fuseUnk {
			add(unkID)
		}
		unkID, pendingUnk = id, true
	}
	if pendingUnk {
		add(unkID)
	}
	if len(syms) > 0 {
		syms[len(syms)-1].next = -1
	}
	return syms, nil
}

func (m *bpeModel) allBytesKnown(s string) bool {
	for i := 0; i < len(s); i++ {
		if m.byteTokenIDs[s[i]] < 0 {
			return false
		}
	}
	return true
}

// wordCache remembers the ids of frequent words; BPE on a word is the costly part
// of encoding and natural text repeats words a lot.
type wordCache struct {
	mu sync.RWMutex
	m  map[string][]int32
}

const (
	cacheMaxEntries = 1 << 16
	cacheMaxWordLen = 64
)

func (c *wordCache) init() { c.m = make(map[string][]int32) }

func (c *wordCache) get(word string) ([]int32, bool) {
	if len(word) > cacheMaxWordLen {
		return nil, false
	}
	c.mu.RLock()
	ids, ok := c.m[word]
	c.mu.RUnlock()
	return ids, ok
}

func (c *wordCache) put(word string, ids []int32) {
	if len(word) > cacheMaxWordLen {
		return
	}
	c.mu.Lock()
	if len(c.m) >= cacheMaxEntries {
		clear(c.m) // simple bound; refilling is cheap
	}
	c.m[word] = append([]int32(nil), ids...)
	c.mu.Unlock()
}
