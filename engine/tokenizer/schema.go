package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
)

// fileSchema mirrors the parts of a Hugging Face tokenizer.json this package reads.
// Components stay raw until their "type" is known, because every component kind
// has its own fields.
type fileSchema struct {
	AddedTokens   []addedTokenSchema `json:"added_tokens"`
	Normalizer    json.RawMessage    `json:"normalizer"`
	PreTokenizer  json.RawMessage    `json:"pre_tokenizer"`
	Model         json.RawMessage    `json:"model"`
	PostProcessor json.RawMessage    `json:"post_processor"`
	Decoder       json.RawMessage    `json:"decoder"`
}

type addedTokenSchema struct {
	ID         int32  `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// componentType reads the "type" tag of a component; ok is false for JSON null,
// which tokenizer.json uses for "no such component".
func componentType(raw json.RawMessage) (typ string, ok bool, err error) {
	if isNull(raw) {
		return "", false, nil
	}
	var tagged struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &tagged); err != nil {
		return "", false, err
	}
	return tagged.Type, true, nil
}

func isNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}

// patternSchema is the {"String": ...} or {"Regex": ...} pattern of Split, Replace.
type patternSchema struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

func (p patternSchema) describe() string {
	switch {
	case p.String != nil:
		return fmt.Sprintf("String %q", *p.String)
	case p.Regex != nil:
		return fmt.Sprintf("Regex %q", *p.Regex)
	}
	return "empty pattern"
}

// configSchema is the subset of tokenizer_config.json used here. Special tokens
// there are either plain strings or AddedToken objects with a "content" field.
type configSchema struct {
	BOSToken     tokenString     `json:"bos_token"`
	EOSToken     tokenString     `json:"eos_token"`
	UnkToken     tokenString     `json:"unk_token"`
	PadToken     tokenString     `json:"pad_token"`
	ChatTemplate json.RawMessage `json:"chat_template"`
}

type tokenString string

func (t *tokenString) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		*t = ""
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = tokenString(s)
		return nil
	}
	var obj struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(b, &obj); err != nil {
		return fmt.Errorf("want a string or an object with \"content\": %w", err)
	}
	*t = tokenString(obj.Content)
	return nil
}
