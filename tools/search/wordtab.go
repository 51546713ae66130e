package search

import "encoding/binary"

// wordTable maps a byte string to a number. It is the index-time memo of
// analysis, looked up once per word of every tool (and once per schema and
// schema text piece), so it is built for that: open addressing over a
// power-of-two slot array, the keys' bytes in one arena, and a hash read
// eight bytes at a time. A Go map keyed by string cost about three times as
// much per lookup here, and copied each key into an allocation of its own.
type wordTable struct {
	slots []wordSlot
	arena []byte
	n     int
}

// wordSlot is one entry; off == 0 marks an empty slot (arena[0] is unused).
type wordSlot struct {
	hash uint32
	off  uint32
	len  uint32
	id   int32
}

// short is the bytes of a word of at most 8 bytes as one little-endian
// number, the bytes past it zero.
func short(w []byte) uint64 {
	if cap(w) >= 8 {
		// One load and a mask instead of a loop: words come from buffers
		// with room, and the bytes past the word are masked off.
		return binary.LittleEndian.Uint64(w[:8]) & (1<<(8*len(w)) - 1)
	}
	var v uint64
	for i, c := range w {
		v |= uint64(c) << (8 * i)
	}
	return v
}

func wordHash(w []byte) uint64 {
	const m = 0x9E3779B97F4A7C15
	h := uint64(len(w)) * m
	for len(w) >= 8 {
		h = (h ^ binary.LittleEndian.Uint64(w)) * m
		h ^= h >> 29
		w = w[8:]
	}
	h = (h ^ short(w)) * m
	return h ^ h>>32
}

// get returns the id stored for w.
func (t *wordTable) get(w []byte, h uint64) (int32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.off == 0 {
			return 0, false
		}
		if s.hash != uint32(h) || int(s.len) != len(w) {
			continue
		}
		// Most words fit in 8 bytes: compared as one number, without a
		// call (the arena keeps 8 bytes from each word's start).
		if len(w) <= 8 {
			if binary.LittleEndian.Uint64(t.arena[s.off:])&(1<<(8*len(w))-1) == short(w) {
				return s.id, true
			}
			continue
		}
		if string(t.arena[s.off:int(s.off)+len(w)]) == string(w) {
			return s.id, true
		}
	}
}

// put stores id for w, which must not be in the table.
func (t *wordTable) put(w []byte, h uint64, id int32) {
	if (t.n+1)*4 > len(t.slots)*3 {
		t.grow()
	}
	if len(t.arena) == 0 {
		t.arena = append(t.arena, 0)
	}
	off := uint32(len(t.arena))
	t.arena = append(t.arena, w...)
	if len(w) < 8 {
		t.arena = append(t.arena, make([]byte, 8-len(w))...) // see get
	}
	t.insert(wordSlot{hash: uint32(h), off: off, len: uint32(len(w)), id: id}, h)
	t.n++
}

func (t *wordTable) insert(s wordSlot, h uint64) {
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for t.slots[i].off != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = s
}

func (t *wordTable) grow() {
	old := t.slots
	t.slots = make([]wordSlot, max(1024, 2*len(old)))
	for _, s := range old {
		if s.off != 0 {
			t.insert(s, wordHash(t.arena[s.off:int(s.off)+int(s.len)]))
		}
	}
}
