package engine

// Config is a model's architecture, resolved from config.json (or a llama2.c header):
// every derived value (head_dim, bias flags, the RoPE frequencies' scaling) is filled
// in, so backends never re-derive them.
type Config struct {
	Architecture  string // "LlamaForCausalLM" or "Qwen2ForCausalLM"
	ModelType     string // "llama", "qwen2"
	HiddenSize    int
	Intermediate  int
	Layers        int
	Heads         int
	KVHeads       int
	HeadDim       int
	VocabSize     int
	RMSNormEps    float64
	RopeTheta     float64
	RopeScaling   *RopeScaling // nil: no scaling
	TiedEmbedding bool         // lm_head shares model.embed_tokens.weight
	QKVBias       bool         // q/k/v projections carry a bias (Qwen2 always; Llama iff attention_bias)
	OBias         bool         // o_proj carries a bias (Llama attention_bias only)
	MaxPositions  int
	BOS           []int32
	EOS           []int32 // every id that ends generation (config.json may list several)
	DType         DType   // the dtype the weights are stored in
}

// RopeScaling is the "llama3" rope_scaling block; other types are rejected at parse time.
type RopeScaling struct {
	Type                    string // "llama3"
	Factor                  float64
	LowFreqFactor           float64
	HighFreqFactor          float64
	OriginalMaxPositionEmbs int
}

// DType is a weight storage type.
type DType string

const (
	F32  DType = "F32"
	F16  DType = "F16"
	BF16 DType = "BF16"
)

// Size is the number of bytes of one element.
func (d DType) Size() int {
	if d == F32 {
		return 4
	}
	return 2
}
