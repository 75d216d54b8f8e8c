package tokenizer

import (
	"encoding/json"
	"fmt"
)

// postProcessor adds the special tokens of add_special_tokens (e.g. BOS) around
// the ids of a single sequence.
type postProcessor interface {
	process(ids []int32) []int32
}

type (
	sequencePostProcessor []postProcessor
	// templatePostProcessor is TemplateProcessing's "single" template flattened
	// to the ids before and after sequence A.
	templatePostProcessor struct{ before, after []int32 }
	// noopPostProcessor stands for ByteLevel, which only adjusts offsets.
	noopPostProcessor struct{}
)

type templatePiece struct {
	SpecialToken *struct {
		ID string `json:"id"`
	} `json:"SpecialToken"`
	Sequence *struct {
		ID string `json:"id"`
	} `json:"Sequence"`
}

func newPostProcessor(raw json.RawMessage) (postProcessor, error) {
	typ, ok, err := componentType(raw)
	if err != nil {
		return nil, fmt.Errorf("post_processor: %w", err)
	}
	if !ok {
		return nil, nil
	}
	switch typ {
	case "Sequence":
		var s struct {
			Processors []json.RawMessage `json:"processors"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("post_processor Sequence: %w", err)
		}
		seq := make(sequencePostProcessor, 0, len(s.Processors))
		for i, r := range s.Processors {
			p, err := newPostProcessor(r)
			if err != nil {
				return nil, fmt.Errorf("post_processor Sequence[%d]: %w", i, err)
			}
			if p != nil {
				seq = append(seq, p)
			}
		}
		return seq, nil
	case "ByteLevel":
		return noopPostProcessor{}, nil
	case "TemplateProcessing":
		return newTemplateProcessing(raw)
	case "BertProcessing", "RobertaProcessing":
		var s struct {
			Sep [2]json.RawMessage `json:"sep"`
			Cls [2]json.RawMessage `json:"cls"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("post_processor %s: %w", typ, err)
		}
		var sep, cls int32
		if err := json.Unmarshal(s.Sep[1], &sep); err != nil {
			return nil, fmt.Errorf("post_processor %s: sep: %w", typ, err)
		}
		if err := json.Unmarshal(s.Cls[1], &cls); err != nil {
			return nil, fmt.Errorf("post_processor %s: cls: %w", typ, err)
		}
		return templatePostProcessor{before: []int32{cls}, after: []int32{sep}}, nil
	}
	return nil, fmt.Errorf("post_processor type %q: unsupported", typ)
}

func newTemplateProcessing(raw json.RawMessage) (postProcessor, error) {
	var s struct {
		Single        []templatePiece `json:"single"`
		SpecialTokens map[string]struct {
			IDs []int32 `json:"ids"`
		} `json:"special_tokens"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("post_processor TemplateProcessing: %w", err)
	}
	var p templatePostProcessor
	seenA := false
	for i, piece := range s.Single {
		switch {
		case piece.Sequence != nil:
			if seenA {
				return nil, fmt.Errorf("post_processor TemplateProcessing: single[%d]: sequence %q repeated", i, piece.Sequence.ID)
			}
			seenA = true
		case piece.SpecialToken != nil:
			tok, ok := s.SpecialTokens[piece.SpecialToken.ID]
			if !ok {
				return nil, fmt.Errorf("post_processor TemplateProcessing: single[%d]: special token %q not in special_tokens", i, piece.SpecialToken.ID)
			}
			if seenA {
				p.after = append(p.after, tok.IDs...)
			} else {
				p.before = append(p.before, tok.IDs...)
			}
		default:
			return nil, fmt.Errorf("post_processor TemplateProcessing: single[%d]: neither Sequence nor SpecialToken", i)
		}
	}
	if !seenA {
		return nil, fmt.Errorf("post_processor TemplateProcessing: single template has no sequence")
	}
	return p, nil
}

func (seq sequencePostProcessor) process(ids []int32) []int32 {
	for _, p := range seq {
		ids = p.process(ids)
	}
	return ids
}

func (t templatePostProcessor) process(ids []int32) []int32 {
	if len(t.before) == 0 && len(t.after) == 0 {
		return ids
	}
	out := make([]int32, 0, len(t.before)+len(ids)+len(t.after))
	out = append(out, t.before...)
	out = append(out, ids...)
	return append(out, t.after...)
}

func (noopPostProcessor) process(ids []int32) []int32 { return ids }
