package textmetrics

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sacrebleu's own TER vectors (test/test_ter.py at mjpost/sacrebleu f615c72,
// tolerance 1e-3 on the 0-1 scale as there).
func TestTERSacrebleuVectors(t *testing.T) {
	cases := []struct {
		hyps, refs []string
		want       float64
	}{
		{[]string{"aaaa bbbb cccc dddd"}, []string{"aaaa bbbb cccc dddd"}, 0},
		{[]string{"dddd eeee ffff"}, []string{"aaaa bbbb cccc"}, 1},
		{[]string{""}, []string{"a"}, 1},
		{[]string{"a"}, []string{""}, 1},
		{[]string{""}, []string{""}, 0},
		{[]string{"d e f g h a b c"}, []string{"a b c d e f g h"}, 1.0 / 8},
		{[]string{
			`wählen Sie " Bild neu berechnen , " um beim Ändern der Bildgröße Pixel hinzuzufügen oder zu entfernen , damit das Bild ungefähr dieselbe Größe aufweist wie die andere Größe .`,
			`wenn Sie alle Aufgaben im aktuellen Dokument aktualisieren möchten , wählen Sie im Menü des Aufgabenbedienfelds die Option " Alle Aufgaben aktualisieren . "`,
			`klicken Sie auf der Registerkarte " Optionen " auf die Schaltfläche " Benutzerdefiniert " und geben Sie Werte für " Fehlerkorrektur-Level " und " Y / X-Verhältnis " ein .`,
			`Sie können beispielsweise ein Dokument erstellen , das ein Auto über die Bühne enthält .`,
			`wählen Sie im Dialogfeld " Neu aus Vorlage " eine Vorlage aus und klicken Sie auf " Neu . "`,
		}, []string{
			`wählen Sie " Bild neu berechnen , " um beim Ändern der Bildgröße Pixel hinzuzufügen oder zu entfernen , damit die Darstellung des Bildes in einer anderen Größe beibehalten wird .`,
			`wenn Sie alle Aufgaben im aktuellen Dokument aktualisieren möchten , wählen Sie im Menü des Aufgabenbedienfelds die Option " Alle Aufgaben aktualisieren . "`,
			`klicken Sie auf der Registerkarte " Optionen " auf die Schaltfläche " Benutzerdefiniert " und geben Sie für " Fehlerkorrektur-Level " und " Y / X-Verhältnis " niedrigere Werte ein .`,
			`Sie können beispielsweise ein Dokument erstellen , das ein Auto enthalt , das sich über die Bühne bewegt .`,
			`wählen Sie im Dialogfeld " Neu aus Vorlage " eine Vorlage aus und klicken Sie auf " Neu . "`,
		}, 0.136},
	}
	for _, c := range cases {
		items := make([]Item, len(c.hyps))
		for i := range items {
			items[i] = Item{Refs: []string{c.refs[i]}, Pred: c.hyps[i]}
		}
		got, err := LMEvalTER(items)
		require.NoError(t, err)
		assert.InDelta(t, 100*c.want, got, 1e-3*100, "%q", c.hyps)
	}
}

// Hand-derived: "b a" against "a b" is one shift (move "a" before "b"), so
// 1 edit over 2 reference words; case does not count (lower-cased); with
// no shift possible, "x y z" vs "a b" needs 2 substitutions and 1 deletion.
func TestTERHandCases(t *testing.T) {
	for _, c := range []struct {
		hyp, ref string
		want     float64
	}{
		{"B a", "a b", 50},
		{"x y z", "a b", 150},
		{"A  B\u00a0c", "a b c", 0},
	} {
		got, err := LMEvalTER([]Item{{Refs: []string{c.ref}, Pred: c.hyp}})
		require.NoError(t, err)
		assert.InDelta(t, c.want, got, 1e-12, "%q vs %q", c.hyp, c.ref)
	}
	assert.Equal(t, []string{"c", "a", "b", "d"}, performShift([]string{"a", "b", "c", "d"}, 2, 1, 0))
	assert.Equal(t, []string{"b", "c", "a", "d"}, performShift([]string{"a", "b", "c", "d"}, 0, 1, 3))
}
