package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"slices"
)

// RequestAnalyser is how tool search analyses a learned request
// (search.RequestTerms and search.AnalysisVersion): the store keeps each
// 'called' row's request analysed under it, so a start reads term numbers
// instead of analysing 100,000 requests again.
type RequestAnalyser struct {
	// Version names the analysis; rows of another version are read as
	// text and analysed again (AnalyseStaleUses).
	Version string
	// Terms analyses a request as stored (cut and redacted).
	Terms func(query string) []string
}

// WithRequestAnalyser has the store keep learned requests analysed by a.
func WithRequestAnalyser(a RequestAnalyser) Option {
	return func(d *DB) {
		if a.Version != "" && a.Terms != nil {
			d.analyser = &a
		}
	}
}

// termDict numbers terms in search_terms within one transaction.
type termDict struct {
	tx           *sql.Tx
	find, insert *sql.Stmt
	ids          map[string]uint64
}

// encode returns terms as their numbers, each a uvarint, adding the terms
// search_terms lacks. Never nil: an empty slice is a request of no terms.
func (t *termDict) encode(ctx context.Context, terms []string) ([]byte, error) {
	if t.ids == nil {
		t.ids = map[string]uint64{}
		var err error
		if t.find, err = t.tx.PrepareContext(ctx, `SELECT id FROM search_terms WHERE term = ?`); err != nil {
			return nil, err
		}
		if t.insert, err = t.tx.PrepareContext(ctx, `INSERT INTO search_terms (term) VALUES (?)`); err != nil {
			return nil, err
		}
	}
	out := make([]byte, 0, 2*len(terms))
	for _, term := range terms {
		id, ok := t.ids[term]
		if !ok {
			var n int64
			err := t.find.QueryRowContext(ctx, term).Scan(&n)
			if err == sql.ErrNoRows {
				var res sql.Result
				if res, err = t.insert.ExecContext(ctx, term); err == nil {
					n, err = res.LastInsertId()
				}
			}
			if err != nil {
				return nil, fmt.Errorf("number search term: %w", err)
			}
			id = uint64(n)
			t.ids[term] = id
		}
		out = binary.AppendUvarint(out, id)
	}
	return out, nil
}

func (t *termDict) close() {
	for _, st := range []*sql.Stmt{t.find, t.insert} {
		if st != nil {
			st.Close()
		}
	}
}

// LearnedSet is what LearnedAnalysed reads: the uses, and the dictionary
// their Terms number into.
type LearnedSet struct {
	Uses []ToolUse
	// Version is the analysis the uses' Terms were made under (the store's
	// RequestAnalyser).
	Version string
	// Terms[n] is the term numbered n ("" for numbers no term has).
	Terms []string
	// Stale is how many of the uses were read as text: stored before the
	// store analysed requests, or under another version.
	Stale int
}

// LearnedAnalysed is LearnedUses as a start reads it: a use whose request
// is stored analysed under the store's RequestAnalyser has its Terms and
// no Query; the others have their Query. Without a RequestAnalyser it is
// LearnedUses.
func (d *DB) LearnedAnalysed(ctx context.Context, scope string, limit int) (LearnedSet, error) {
	if d.analyser == nil {
		uses, err := d.LearnedUses(ctx, scope, limit)
		return LearnedSet{Uses: uses, Stale: len(uses)}, err
	}
	set := LearnedSet{Version: d.analyser.Version}
	if limit <= 0 {
		limit = -1
	}
	var n int
	if err := d.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM tool_uses WHERE kind = 'called' AND scope = ?`, scope).Scan(&n); err != nil {
		return set, fmt.Errorf("count learned tool uses: %w", mapErr(err))
	}
	if limit > 0 {
		n = min(n, limit)
	}
	// The text of a request is read only when its terms are not: most of
	// what a start read was text it then analysed.
	rows, err := d.sql.QueryContext(ctx, `SELECT at, tool, server, terms_version = ?2,
		CASE WHEN terms_version = ?2 THEN terms END, CASE WHEN terms_version = ?2 THEN '' ELSE query END
		FROM tool_uses WHERE kind = 'called' AND scope = ?1 ORDER BY at DESC, id DESC LIMIT ?3`, scope, set.Version, limit)
	if err != nil {
		return set, fmt.Errorf("read learned tool uses: %w", mapErr(err))
	}
	defer rows.Close()
	set.Uses = make([]ToolUse, 0, n)
	for rows.Next() {
		u := ToolUse{Kind: UseCalled, Scope: scope}
		var at int64
		var analysed bool
		if err := rows.Scan(&at, &u.Tool, &u.Server, &analysed, &u.Terms, &u.Query); err != nil {
			return set, fmt.Errorf("read learned tool uses: %w", mapErr(err))
		}
		switch {
		case !analysed:
			u.Terms = nil
			set.Stale++
		case u.Terms == nil:
			u.Terms = []byte{} // a request of no terms
		}
		u.At = fromMS(at)
		set.Uses = append(set.Uses, u)
	}
	if err := rows.Err(); err != nil {
		return set, fmt.Errorf("read learned tool uses: %w", mapErr(err))
	}
	slices.Reverse(set.Uses)
	if set.Stale < len(set.Uses) {
		// After the rows: search_terms only grows, and a row's terms commit
		// with it, so every number read is in it.
		if set.Terms, err = d.searchTerms(ctx); err != nil {
			return set, err
		}
	}
	return set, nil
}

// searchTerms reads search_terms, indexed by number.
func (d *DB) searchTerms(ctx context.Context) ([]string, error) {
	var top sql.NullInt64
	if err := d.sql.QueryRowContext(ctx, `SELECT MAX(id) FROM search_terms`).Scan(&top); err != nil {
		return nil, fmt.Errorf("read search terms: %w", mapErr(err))
	}
	out := make([]string, top.Int64+1)
	rows, err := d.sql.QueryContext(ctx, `SELECT id, term FROM search_terms`)
	if err != nil {
		return nil, fmt.Errorf("read search terms: %w", mapErr(err))
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var term string
		if err := rows.Scan(&id, &term); err != nil {
			return nil, fmt.Errorf("read search terms: %w", mapErr(err))
		}
		if id > 0 && id < int64(len(out)) {
			out[id] = term
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read search terms: %w", mapErr(err))
	}
	return out, nil
}

// staleBatch is how many rows AnalyseStaleUses rewrites a transaction: a
// writer of this session waits for one batch at most.
var staleBatch = 500

// AnalyseStaleUses stores the analysis of every 'called' row of scope
// stored before the store analysed requests, or under another version
// than its RequestAnalyser's, and returns how many it rewrote. A start
// that read such rows as text runs it in the background, so the next start
// reads them analysed.
func (d *DB) AnalyseStaleUses(ctx context.Context, scope string) (int, error) {
	if d.analyser == nil {
		return 0, nil
	}
	done := 0
	var after int64 // the rows are taken in id order, each batch after the last
	for {
		n := 0
		err := d.withTx(ctx, func(tx *sql.Tx) error {
			batch, err := d.staleUses(ctx, tx, scope, after)
			if err != nil {
				return err
			}
			if len(batch) > 0 {
				after = batch[len(batch)-1].id
			}
			st, err := tx.PrepareContext(ctx, `UPDATE tool_uses SET terms = ?, terms_version = ? WHERE id = ?`)
			if err != nil {
				return err
			}
			defer st.Close()
			dict := &termDict{tx: tx}
			defer dict.close()
			for _, r := range batch {
				terms, err := dict.encode(ctx, d.analyser.Terms(r.query))
				if err != nil {
					return err
				}
				if _, err := st.ExecContext(ctx, terms, d.analyser.Version, r.id); err != nil {
					return err
				}
			}
			n = len(batch)
			return nil
		})
		if err != nil {
			return done, fmt.Errorf("analyse stored requests: %w", err)
		}
		done += n
		if n < staleBatch {
			return done, nil
		}
	}
}

// staleRow is a row AnalyseStaleUses rewrites.
type staleRow struct {
	id    int64
	query string
}

// staleUses is the next batch of scope's called rows not analysed under
// d's analyser, of ids above after.
func (d *DB) staleUses(ctx context.Context, tx *sql.Tx, scope string, after int64) ([]staleRow, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, query FROM tool_uses
		WHERE id > ? AND kind = 'called' AND scope = ? AND terms_version != ? ORDER BY id LIMIT ?`,
		after, scope, d.analyser.Version, staleBatch)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var batch []staleRow
	for rows.Next() {
		var r staleRow
		if err := rows.Scan(&r.id, &r.query); err != nil {
			return nil, err
		}
		batch = append(batch, r)
	}
	return batch, rows.Err()
}

// pruneTerms deletes the search terms no row's terms number any more:
// forgetting a tool forgets the words of its requests too.
func pruneTerms(ctx context.Context, tx *sql.Tx) error {
	used, err := usedTerms(ctx, tx)
	if err != nil {
		return err
	}
	drop, err := unusedTerms(ctx, tx, used)
	if err != nil {
		return err
	}
	if len(drop) == 0 {
		return nil
	}
	st, err := tx.PrepareContext(ctx, `DELETE FROM search_terms WHERE id = ?`)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, id := range drop {
		if _, err := st.ExecContext(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// usedTerms is the term numbers rows have.
func usedTerms(ctx context.Context, tx *sql.Tx) (map[uint64]bool, error) {
	used := map[uint64]bool{}
	rows, err := tx.QueryContext(ctx, `SELECT terms FROM tool_uses WHERE terms IS NOT NULL`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, err
		}
		for len(b) > 0 {
			id, k := binary.Uvarint(b)
			if k <= 0 {
				break
			}
			used[id] = true
			b = b[k:]
		}
	}
	return used, rows.Err()
}

// unusedTerms is the numbers of search_terms not in used.
func unusedTerms(ctx context.Context, tx *sql.Tx, used map[uint64]bool) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id FROM search_terms`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var drop []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		if !used[uint64(id)] {
			drop = append(drop, id)
		}
	}
	return drop, rows.Err()
}
