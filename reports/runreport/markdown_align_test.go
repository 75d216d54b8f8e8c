package runreport

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAlignedTable(t *testing.T) {
	rows := [][]string{
		{"Sampler", "Value", "", "Stderr"},
		{"greedy", "0.5000", "±", "0.1000"},
		{"entropix(attn_mode=padded,pad_len=4096)", "12.5000", "±", "N/A"},
	}
	right := []bool{false, true, false, true}
	assert.Equal(t, ""+
		"|Sampler                                |  Value| |Stderr|\n"+
		"|---------------------------------------|------:|-|-----:|\n"+
		"|greedy                                 | 0.5000|±|0.1000|\n"+
		"|entropix(attn_mode=padded,pad_len=4096)|12.5000|±|   N/A|\n",
		AlignedTable(rows, right, true))
	assert.Equal(t, ""+
		"Sampler                                    Value     Stderr\n"+
		"greedy                                    0.5000  ±  0.1000\n"+
		"entropix(attn_mode=padded,pad_len=4096)  12.5000  ±     N/A\n",
		AlignedTable(rows, right, false))
}
