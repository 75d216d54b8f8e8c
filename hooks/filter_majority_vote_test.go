package hooks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// majority_vote is Counter(resps).most_common(1)[0][0] as a list of one: ties
// go to the answer seen first.
func TestMajorityVote(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"1", "2", "2", "1", "2"}, "2"},
		{[]string{"7", "5", "5", "7"}, "7"},
		{[]string{"x"}, "x"},
	} {
		got, err := runFilter(t, "majority_vote", nil, values(tc.in...), nil)
		require.NoError(t, err)
		assert.Equal(t, values(tc.want), got, "%v", tc.in)
	}
}
