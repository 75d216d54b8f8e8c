package engine

import "github.com/entropix-eval/entropix-eval/internal/pyjson"

// transformersVersion is the version the builder's config files claim to come from.
const transformersVersion = "4.45.0"

// pyJSONFile is a config file's text as transformers' to_json_string writes
// it: json.dumps(v, indent=2, sort_keys=True) + "\n" (Go maps' keys come out
// sorted; floats as Python's repr, 1e-05 and 10000.0, where Go's encoder
// would write 0.00001 and 10000).
func pyJSONFile(v any) ([]byte, error) {
	b, err := pyjson.DumpsIndentASCII(v, 2)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// configJSON is the config.json that transformers 4.45's save_pretrained writes for
// c, with the usual default keys of LlamaConfig or Qwen2Config.
func configJSON(c Config, writeHeadDim bool) map[string]any {
	m := map[string]any{
		"architectures":           []string{c.Architecture},
		"attention_dropout":       0.0,
		"bos_token_id":            tokenIDsJSON(c.BOS),
		"eos_token_id":            tokenIDsJSON(c.EOS),
		"hidden_act":              "silu",
		"hidden_size":             c.HiddenSize,
		"initializer_range":       0.02,
		"intermediate_size":       c.Intermediate,
		"max_position_embeddings": c.MaxPositions,
		"model_type":              c.ModelType,
		"num_attention_heads":     c.Heads,
		"num_hidden_layers":       c.Layers,
		"num_key_value_heads":     c.KVHeads,
		"rms_norm_eps":            c.RMSNormEps,
		"rope_scaling":            nil,
		"rope_theta":              c.RopeTheta,
		"tie_word_embeddings":     c.TiedEmbedding,
		"torch_dtype":             torchDType(c.DType),
		"transformers_version":    transformersVersion,
		"use_cache":               true,
		"vocab_size":              c.VocabSize,
	}
	if writeHeadDim {
		m["head_dim"] = c.HeadDim
	}
	if rs := c.RopeScaling; rs != nil {
		m["rope_scaling"] = map[string]any{
			"factor":                           rs.Factor,
			"high_freq_factor":                 rs.HighFreqFactor,
			"low_freq_factor":                  rs.LowFreqFactor,
			"original_max_position_embeddings": rs.OriginalMaxPositionEmbs,
			"rope_type":                        rs.Type,
		}
	}
	if c.ModelType == "qwen2" {
		m["max_window_layers"] = c.Layers
		m["sliding_window"] = c.MaxPositions
		m["use_sliding_window"] = false
	} else {
		m["attention_bias"] = c.QKVBias
		m["mlp_bias"] = false
		m["pretraining_tp"] = 1
	}
	return m
}

// generationConfigJSON is what save_pretrained writes for a model built from a config.
func generationConfigJSON(c Config) map[string]any {
	m := map[string]any{"_from_model_config": true, "transformers_version": transformersVersion}
	if c.BOS != nil {
		m["bos_token_id"] = tokenIDsJSON(c.BOS)
	}
	if c.EOS != nil {
		m["eos_token_id"] = tokenIDsJSON(c.EOS)
	}
	return m
}

// tokenIDsJSON writes one id as a number and several as a list, as HF configs do.
func tokenIDsJSON(ids []int32) any {
	switch len(ids) {
	case 0:
		return nil
	case 1:
		return ids[0]
	}
	return ids
}

func torchDType(d DType) string {
	switch d {
	case F16:
		return "float16"
	case BF16:
		return "bfloat16"
	}
	return "float32"
}
