package main

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/entropix-eval/entropix-eval/datasets"
)

func main() {
	ix, err := datasets.NewIndex(os.Args[1])
	if err != nil {
		panic(err)
	}
	combos := map[string]int{}
	folder := map[string]int{}
	for _, e := range ix.Entries() {
		if e.Kind != datasets.KindTask {
			continue
		}
		_, err := ix.Task(e.Name)
		var re *datasets.RefusedTaskError
		if err == nil || !errors.As(err, &re) {
			continue
		}
		var cl []string
		gen := true
		for _, b := range re.Blockers {
			if strings.HasPrefix(b.Class, "output_type") {
				gen = false
			}
			c := b.Class
			if strings.HasSuffix(c, "hook") || strings.Contains(c, "!function") {
				c += " [" + strings.Split(strings.TrimPrefix(e.File, os.Args[1]+"/"), "/")[0] + "]"
			}
			cl = append(cl, c)
		}
		if !gen {
			continue
		}
		sort.Strings(cl)
		cl = compact(cl)
		combos[strings.Join(cl, " + ")]++
		folder[strings.Split(strings.TrimPrefix(e.File, os.Args[1]+"/"), "/")[0]]++
	}
	type kv struct {
		k string
		v int
	}
	var out []kv
	for k, v := range combos {
		out = append(out, kv{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].v > out[j].v })
	for _, x := range out[:60] {
		fmt.Println(x.v, x.k)
	}
	fmt.Println("--- by folder")
	out = nil
	for k, v := range folder {
		out = append(out, kv{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].v > out[j].v })
	for _, x := range out[:40] {
		fmt.Println(x.v, x.k)
	}
}

func compact(s []string) []string {
	var o []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			o = append(o, x)
		}
	}
	return o
}
