package sampler_test

import (
	"fmt"

	"github.com/entropix-eval/entropix-eval/sampler"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

func Example() {
	spec, err := sampler.ParseFlag("min_p,temperature=1.5,min_p=0.1")
	if err != nil {
		panic(err)
	}
	smp, err := spec.New(nil) // baselines need no tokenizer
	if err != nil {
		panic(err)
	}
	var d metrics.Dist
	metrics.FillDist(&d, []float32{2.0, 1.5, -1.0, 0.3, -4.0}, 0)
	rng := sampler.NewRNG(1234, "gsm8k/test/17", 0) // run seed, problem id, repeat
	dec, err := smp.Sample(&d, nil, nil, rng)
	if err != nil {
		panic(err)
	}
	fmt.Println(smp.Name(), dec.Strategy, dec.Temperature, dec.MinP, dec.Survivors, dec.TailCut)
	// Output: min_p sample 1.5 0.1 4 false
}

func ExampleConfig_New() {
	spec, _ := sampler.ParseFlag("entropix:frog,faithful=true")
	vocab := map[string]int32{" ...": 2564}
	lookup := func(text string) (int32, bool) { id, ok := vocab[text]; return id, ok }
	smp, err := spec.New(lookup)
	fmt.Println(smp.Name(), smp.Describe()["clarifying_token_id"], err)

	spec, _ = sampler.ParseFlag(`entropix,clarifying_token=" hmm"`)
	_, err = spec.New(lookup)
	fmt.Println(err)
	// Output:
	// entropix:frog 2564 <nil>
	// sampler entropix: clarifying token " hmm" does not exist in this tokenizer's vocabulary; set clarifying_token to a token it has, or clarifying_token_id
}
