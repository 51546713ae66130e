package store

import (
	"slices"
	"testing"
)

// A subagent's session names its parent; the parent's export lists its
// children; the link survives a metadata update and is cut, not cascaded,
// when the parent is deleted.
func TestParentSessionLink(t *testing.T) {
	d, _ := openTest(t)
	ctx := t.Context()
	parent := create(t, d, "/w")
	appendAll(t, parent, conversation()...) // --continue takes only a session with messages
	var kids []string
	for range 2 {
		c, err := d.Create(ctx, SessionMeta{Workdir: "/w", Provider: "openai-chat", Model: "m", ParentID: parent.ID()})
		if err != nil {
			t.Fatal(err)
		}
		kids = append(kids, c.ID())
		meta := c.Meta()
		meta.ParentID = "" // UpdateMeta keeps the link whatever it is given
		if err := c.UpdateMeta(ctx, meta); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	e, err := d.Export(ctx, parent.ID())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(e.Children, kids) || e.Session.ParentID != "" {
		t.Fatalf("parent export: children %v (want %v), parent %q", e.Children, kids, e.Session.ParentID)
	}
	k, err := d.Export(ctx, kids[1])
	if err != nil {
		t.Fatal(err)
	}
	if k.Session.ParentID != parent.ID() || len(k.Children) != 0 {
		t.Fatalf("child export: parent %q, children %v", k.Session.ParentID, k.Children)
	}
	// --continue takes the newest session of the directory that is not
	// a subagent's, though the children were written later.
	if l, err := d.Latest(ctx, "/w"); err == nil {
		t.Fatalf("Latest opened %s while the parent is open", l.ID())
	}
	if err := parent.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := d.Latest(ctx, "/w")
	if err != nil || l.ID() != parent.ID() {
		t.Fatalf("Latest: %v, want the parent %s", err, parent.ID())
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Delete(ctx, parent.ID()); err != nil {
		t.Fatal(err)
	}
	k, err = d.Export(ctx, kids[0])
	if err != nil || k.Session.ParentID != "" {
		t.Fatalf("after the parent's deletion: %v, parent %q", err, k.Session.ParentID)
	}
}
