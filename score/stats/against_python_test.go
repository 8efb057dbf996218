package stats

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestAgainstStatsmodels: the Wilson interval and the exact McNemar p agree
// with statsmodels' (proportion_confint method="wilson"; mcnemar exact=True,
// scipy's binomial tail) on the values testdata/statsmodels.py wrote, from one
// trial to a million and on p-values down to the smallest float64.
func TestAgainstStatsmodels(t *testing.T) {
	f, err := os.Open("testdata/statsmodels.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	close := func(got, want, rel float64) bool {
		if want < 1e-290 {
			return got < 1e-290 // scipy's tail and ours part in the last subnormal digits
		}
		return math.Abs(got-want) <= rel*math.Abs(want)
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	wilsons, mcnemars := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		a, _ := strconv.Atoi(fs[1])
		b, _ := strconv.Atoi(fs[2])
		switch fs[0] {
		case "wilson":
			lo, hi, ok := Wilson(b, a)
			wantLo, wantHi := num(fs[3]), num(fs[4])
			// an end at 0 or 100 is exact here; within 1e-12 of it there
			if !ok || math.Abs(lo-wantLo) > 1e-12*math.Max(1, wantLo) || math.Abs(hi-wantHi) > 1e-12*wantHi {
				t.Errorf("Wilson(%d, %d) = [%v, %v], statsmodels [%v, %v]", b, a, lo, hi, wantLo, wantHi)
			}
			wilsons++
		case "mcnemar":
			got, want := McNemarExact(a, b), num(fs[3])
			if !close(got, want, 1e-10) {
				t.Errorf("McNemarExact(%d, %d) = %v, statsmodels %v", a, b, got, want)
			}
			mcnemars++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if wilsons < 500 || mcnemars < 600 {
		t.Fatalf("read %d Wilson and %d McNemar values", wilsons, mcnemars)
	}
}

// TestPercentileAgainstNumpy: Percentile gives numpy.percentile's value to the
// bit (the same position and interpolation), on the samples
// testdata/numpy_percentile.py wrote: whole numbers, fractions, repeated
// values and values nine and fifteen orders apart.
func TestPercentileAgainstNumpy(t *testing.T) {
	data, err := os.ReadFile("testdata/numpy_percentile.txt")
	if err != nil {
		t.Fatal(err)
	}
	var xs []float64
	checked := 0
	for _, line := range strings.Split(string(data), "\n") {
		fs := strings.Fields(line)
		if len(fs) == 0 || fs[0] == "#" {
			continue
		}
		vals := make([]float64, len(fs)-1)
		for i, f := range fs[1:] {
			if vals[i], err = strconv.ParseFloat(f, 64); err != nil {
				t.Fatal(err)
			}
		}
		switch fs[0] {
		case "x":
			xs = vals
		case "p":
			if got := Percentile(xs, vals[0]); got != vals[1] {
				t.Errorf("Percentile(%d values, %v) = %v, numpy %v", len(xs), vals[0], got, vals[1])
			}
			checked++
		}
	}
	if checked < 300 {
		t.Fatalf("checked %d percentiles", checked)
	}
}
