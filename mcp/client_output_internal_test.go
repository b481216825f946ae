package mcp

import (
	"encoding/json"
	"testing"
)

// A listing requested before notifications/tools/list_changed and read
// after it is not kept: it may list tools that changed.
func TestToolOutputs_dropsAListingOverlappedByAListChange(t *testing.T) {
	var o toolOutputs
	tools := []*Tool{{Name: "a", OutputSchema: json.RawMessage(`{"type":"object"}`)}}
	gen := o.generation()
	o.changed()
	o.listed(gen, true, tools)
	if o.lookup("a") != nil {
		t.Fatal("a listing older than the last list change was kept")
	}
	o.listed(o.generation(), true, tools)
	if o.lookup("a") == nil {
		t.Fatal("a listing after the last list change was dropped")
	}
	o.listed(o.generation(), false, []*Tool{{Name: "a", OutputSchema: json.RawMessage(`null`)}})
	if o.lookup("a") != nil {
		t.Fatal("a later page listing a without an output schema kept the old one")
	}
}
