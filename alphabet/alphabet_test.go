package alphabet

import "testing"

func TestAminoCodes(t *testing.T) {
	a := New(Amino)
	if a.K != 20 || a.Kp != 29 {
		t.Fatalf("K=%d Kp=%d, want 20 29", a.K, a.Kp)
	}
	for c := 'A'; c <= 'Z'; c++ {
		if a.Inmap[c] == Illegal || a.Inmap[c+32] != a.Inmap[c] {
			t.Errorf("letter %c should be legal in both cases", c)
		}
	}
	cases := map[byte]byte{'A': 0, 'Y': 19, '-': 20, '.': 20, '_': 20, 'B': 21, 'J': 22, 'Z': 23, 'O': 24, 'U': 25, 'X': 26, '*': 27, '~': 28}
	for c, want := range cases {
		if got := a.Inmap[c]; got != want {
			t.Errorf("Inmap[%q] = %d, want %d", c, got, want)
		}
	}
	if a.Inmap['1'] != Illegal {
		t.Error("digits must be illegal")
	}
	if !a.Degen[21][a.Inmap['N']] || !a.Degen[21][a.Inmap['D']] || a.NDegen[21] != 2 {
		t.Error("B must be {N,D}")
	}
	if a.NDegen[26] != 20 || a.IsResidue(20) || !a.IsResidue(26) || a.IsResidue(27) {
		t.Error("X must be any residue; gap and * are not residues")
	}
}

func TestDNASynonyms(t *testing.T) {
	a := New(DNA)
	if a.Inmap['U'] != a.Inmap['T'] || a.Inmap['x'] != a.Inmap['N'] || a.Inmap['I'] != 0 {
		t.Error("DNA synonyms U=T, X=N, I=A expected")
	}
	if a.NDegen[a.Inmap['H']] != 3 || a.NDegen[a.Inmap['N']] != 4 {
		t.Error("H has 3 members and N 4")
	}
	r := New(RNA)
	if r.Sym[3] != 'U' || r.Inmap['T'] != 3 {
		t.Error("RNA reads T as U")
	}
}

func TestExpectScore(t *testing.T) {
	a := New(Amino)
	sc := make([]float32, a.Kp)
	p := make([]float32, a.K)
	for i := 0; i < a.K; i++ {
		sc[i] = float32(i)
		p[i] = 1
	}
	a.FExpectScVec(sc, p)
	if sc[a.Inmap['U']] != sc[a.Inmap['C']] || sc[a.Inmap['B']] != (sc[a.Inmap['N']]+sc[a.Inmap['D']])/2 {
		t.Errorf("expected scores wrong: U=%v B=%v", sc[a.Inmap['U']], sc[a.Inmap['B']])
	}
}
