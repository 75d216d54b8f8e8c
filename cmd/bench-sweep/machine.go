package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/cpu"

	enginecpu "github.com/entropix-eval/entropix-eval/engine/cpu"
)

// printMachine prints what the figures depend on: the CPU model, its vector
// ISA, and the kernels our engine runs on it (read from the engine's own
// dispatch switches, so the line says what ran, not what could).
func printMachine() {
	fmt.Printf("machine: %s, %d CPUs, %s; load average %s\n", cpuModel(), numCPU(), isaLevel(), loadAvg())
	choices, _ := enginecpu.Kernels()
	for _, c := range choices {
		fmt.Printf("  kernel  %-38s %s\n", c.Op, c.Kernel)
	}
}

// isaLevel names the vector extensions the kernels care about.
func isaLevel() string {
	switch runtime.GOARCH {
	case "amd64":
		has := func(ok bool, name string) string {
			if ok {
				return name
			}
			return "no " + name
		}
		level := "x86-64 (baseline)"
		switch {
		case cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL:
			level = "x86-64-v4"
		case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
			level = "x86-64-v3"
		}
		return fmt.Sprintf("ISA %s (%s, %s, %s, %s)", level, has(cpu.X86.HasAVX2, "AVX2"), has(cpu.X86.HasFMA, "FMA"),
			has(cpu.X86.HasAVX512F, "AVX-512F"), has(cpu.X86.HasAVX512BF16, "AVX512_BF16"))
	case "arm64":
		return fmt.Sprintf("ISA arm64 (ASIMD %v, SVE %v)", cpu.ARM64.HasASIMD, cpu.ARM64.HasSVE)
	}
	return "ISA " + runtime.GOARCH
}

// cpuModel is /proc/cpuinfo's first model name, or the architecture elsewhere.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
