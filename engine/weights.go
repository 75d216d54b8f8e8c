package engine

import "fmt"

// TensorSpec is a weight a config implies: its Hugging Face name and shape.
type TensorSpec struct {
	Name  string
	Shape []int
}

// ExpectedTensors lists every weight a checkpoint of this config must hold, in the
// order a forward pass uses them. Tied models have no lm_head.weight.
func (c *Config) ExpectedTensors() []TensorSpec {
	h := c.HiddenSize
	specs := []TensorSpec{{"model.embed_tokens.weight", []int{c.VocabSize, h}}}
	for l := 0; l < c.Layers; l++ {
		specs = c.appendLayerTensors(specs, l)
	}
	specs = append(specs, TensorSpec{"model.norm.weight", []int{h}})
	if !c.TiedEmbedding {
		specs = append(specs, TensorSpec{"lm_head.weight", []int{c.VocabSize, h}})
	}
	return specs
}

// ExpectedTensorCount is len(ExpectedTensors()) without building the list, so
// a config can be checked against the weights' real tensor count first: a
// config.json of num_hidden_layers 1000000 built 9 million specs (4 GB, a
// minute) before any error.
func (c *Config) ExpectedTensorCount() int {
	n := 2 + len(c.appendLayerTensors(nil, 0))*c.Layers
	if !c.TiedEmbedding {
		n++
	}
	return n
}

// appendLayerTensors appends layer l's weights.
func (c *Config) appendLayerTensors(specs []TensorSpec, l int) []TensorSpec {
	h, q, kv := c.HiddenSize, c.Heads*c.HeadDim, c.KVHeads*c.HeadDim
	p := fmt.Sprintf("model.layers.%d.", l)
	add := func(name string, shape ...int) { specs = append(specs, TensorSpec{p + name, shape}) }
	add("input_layernorm.weight", h)
	add("self_attn.q_proj.weight", q, h)
	add("self_attn.k_proj.weight", kv, h)
	add("self_attn.v_proj.weight", kv, h)
	if c.QKVBias {
		add("self_attn.q_proj.bias", q)
		add("self_attn.k_proj.bias", kv)
		add("self_attn.v_proj.bias", kv)
	}
	add("self_attn.o_proj.weight", h, q)
	if c.OBias {
		add("self_attn.o_proj.bias", h)
	}
	add("post_attention_layernorm.weight", h)
	add("mlp.gate_proj.weight", c.Intermediate, h)
	add("mlp.up_proj.weight", c.Intermediate, h)
	add("mlp.down_proj.weight", h, c.Intermediate)
	return specs
}
