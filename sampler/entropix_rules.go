package sampler

import "math"

// The formulas below follow the Python evaluation order exactly, and every product
// is wrapped in float64(...): Go may otherwise fuse x*y + z into an FMA on arm64 and
// friends, which moves the last bit and, at the int()/round() boundaries the goldens
// probe, an integer top_k.

// plan applies the rules in the order LELV → HELV → LEHV → HEHV → adaptive; the first
// true one wins. All comparisons are strict.
func (e *Entropix) plan(m stepMetrics, clarifyingSeen bool) plan {
	c := &e.cfg
	attn := func(entLow, ventLow bool) bool {
		if !c.UseAttention {
			return true
		}
		return entLowOrHigh(m.attnEnt, c.AttnEntropy, entLow) && entLowOrHigh(m.attnVent, c.AttnVarentropy, ventLow)
	}
	agree := func(low bool) bool { return !c.UseAgreement || entLowOrHigh(m.agreement, c.Agreement, low) }
	// LEHV tests interaction strength above the LOW threshold; HEHV above the high one.
	lelv := m.ent < c.LogitsEntropy.Low && m.vent < c.LogitsVarentropy.Low && attn(true, true) &&
		agree(true) && (!c.UseInteraction || m.interaction < c.InteractionStrength.Low)
	helv := m.ent > c.LogitsEntropy.High && m.vent < c.LogitsVarentropy.Low && attn(true, true) &&
		agree(true) && (!c.UseInteraction || m.interaction < c.InteractionStrength.Low)
	lehv := m.ent < c.LogitsEntropy.High && m.vent > c.LogitsVarentropy.High && attn(true, false) &&
		agree(true) && (!c.UseInteraction || m.interaction > c.InteractionStrength.Low)
	hehv := m.ent > c.LogitsEntropy.Medium && m.vent > c.LogitsVarentropy.High && attn(false, false) &&
		agree(false) && (!c.UseInteraction || m.interaction > c.InteractionStrength.High)

	p := plan{conditions: [4]bool{lelv, helv, lehv, hehv}}
	base := Params{Temperature: c.Temperature, TopK: c.TopK, TopP: c.TopP, MinP: c.MinP}
	switch {
	case lelv:
		p.strategy = StrategyArgmax
	case helv && !clarifyingSeen:
		p.strategy = StrategyInsertClarifying
	case helv:
		p.strategy, p.params, p.nSamples = StrategyHELV, base, 1
		adj := c.HELVAttnEntOffset + float64(c.HELVAttnEntCoef*m.attnEnt)
		p.params.Temperature = pyMin(c.HELVTempCap, float64(c.Temperature*adj))
	case lehv:
		p.strategy, p.params, p.nSamples = StrategyLEHV, base, 1
		adj := c.LEHVInteractionOffset + float64(c.LEHVInteractionCoef*m.interaction)
		p.params.Temperature = pyMin(c.LEHVTempCap, float64(c.Temperature*adj))
		k := float64(float64(c.TopK) * (1 + float64(c.LEHVTopKAgreeCoef*(1-m.agreement))))
		p.params.TopK = max(c.LEHVTopKFloor, pyInt(k))
	case hehv:
		p.strategy, p.params, p.nSamples = StrategyHEHV, base, 1
		adj := c.HEHVAttnVentOffset + float64(c.HEHVAttnVentCoef*m.attnVent)
		p.params.Temperature = pyMax(c.HEHVTempFloor, float64(c.Temperature*adj))
		p.params.TopP = pyMax(c.HEHVTopPFloor, c.TopP-float64(c.HEHVAttnEntCoef*m.attnEnt))
	default:
		p.strategy, p.nSamples = StrategyAdaptive, c.NAdaptiveSamples
		p.params, p.confidence = e.adaptive(m)
	}
	return p
}

// adaptive computes the adaptive branch's parameters and confidence term.
func (e *Entropix) adaptive(m stepMetrics) (Params, float64) {
	c := &e.cfg
	var tempLogits, tempAttn, minPBase float64
	if c.AdaptiveFormula == "original" {
		u := m.ent + m.vent
		tempLogits, tempAttn, minPBase = u, m.attnEnt+m.attnVent, u
	} else {
		tempLogits, tempAttn, minPBase = m.ent, m.attnEnt, m.vent
	}
	t := float64(c.Temperature * ((1 + float64(c.AdaTempLogits*tempLogits) + float64(c.AdaTempAttn*tempAttn)) -
		float64(c.AdaTempAgree*m.agreement)))
	topP := clip(float64(c.TopP*(1+float64(c.AdaTopP*m.attnVent))), c.AdaTopPMin, c.AdaTopPMax)
	k := float64(float64(c.TopK) * ((1 + float64(c.AdaTopKInt*m.interaction)) - float64(c.AdaTopKAgree*m.agreement)))
	topK := pyInt(clip(math.RoundToEven(k), float64(c.AdaTopKMin), float64(c.AdaTopKMax)))
	minP := clip(float64(c.MinP*(1-float64(c.AdaMinP*minPBase))), c.AdaMinPMin, c.AdaMinPMax)

	var conf float64
	if c.AdaptiveFormula == "original" {
		conf = float64((1-m.ent)*c.AdaScoreLogitsEnt) + float64((1-m.attnEnt)*c.AdaScoreAttnEnt) +
			float64((1-m.vent)*c.AdaScoreLogitsVent) + float64((1-m.attnVent)*c.AdaScoreAttnVent) +
			float64(m.agreement*c.AdaScoreAgree) + float64(m.interaction*c.AdaScoreInt)
	} else {
		conf = float64((1-m.ent/c.LogitsEntropy.High)*c.AdaScoreLogitsEnt) +
			float64((1-m.attnEnt/c.AttnEntropy.High)*c.AdaScoreAttnEnt) +
			float64((1-m.vent/c.LogitsVarentropy.High)*c.AdaScoreLogitsVent) +
			float64((1-m.attnVent/c.AttnVarentropy.High)*c.AdaScoreAttnVent) +
			float64((m.agreement/c.Agreement.High)*c.AdaScoreAgree) +
			float64((m.interaction/c.InteractionStrength.High)*c.AdaScoreInt)
	}
	return Params{Temperature: t, TopK: topK, TopP: topP, MinP: minP}, conf
}

// entLowOrHigh tests x < levels.Low (low) or x > levels.High (!low).
func entLowOrHigh(x float64, l Levels, low bool) bool {
	if low {
		return x < l.Low
	}
	return x > l.High
}

// pyMin and pyMax are Python's min(a, b) and max(a, b) for two floats.
func pyMin(a, b float64) float64 {
	if b < a {
		return b
	}
	return a
}

func pyMax(a, b float64) float64 {
	if b > a {
		return b
	}
	return a
}

// clip is jnp.clip: max(lo, min(x, hi)).
func clip(x, lo, hi float64) float64 { return math.Max(lo, math.Min(x, hi)) }

// pyInt is Python int(): truncation toward zero.
func pyInt(x float64) int { return int(math.Trunc(x)) }
