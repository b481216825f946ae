package reqmeta

import (
	"bytes"
	"context"
	"reflect"
	"testing"
)

// carryParams are params whose View is carried, or not (not whole).
var carryParams = []string{
	`{"name":"echo","arguments":{"message":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`,
	`{"_meta":{"progressToken":7,"io.modelcontextprotocol/logLevel":"info","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}},"name":"x"}`,
	`{"name":"echo","inputResponses":{"a":{"result":{}}},"requestState":"s","arguments":{}}`,
	`{"name":"a","name":"b"}`,
	`{}`,
	`{"_meta":[]}`,
}

// TestWith_carriesTheViewOntoACopy checks that From puts the View With
// carried onto a copy of its params (another buffer, as conn's), member
// for member as Read finds them there.
func TestWith_carriesTheViewOntoACopy(t *testing.T) {
	for _, p := range carryParams {
		body := []byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":` + p + `}`)
		params := body[len(body)-len(p)-1 : len(body)-1] // within a body, as the Scanner's
		var v View
		whole := v.Read(params)
		ctx := With(context.Background(), params, &v)
		if carries := ctx != context.Background(); carries != whole {
			t.Errorf("%s: carried %v, want %v (whole)", p, carries, whole)
		}
		cp := bytes.Clone(params)
		copy(body, bytes.Repeat([]byte{'#'}, len(body))) // the transport's buffer reused
		got, want := junkView(), View{}
		want.Read(cp)
		if ok := From(ctx, cp, &got); ok != whole {
			t.Fatalf("%s: From = %v, want %v", p, ok, whole)
		} else if ok && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: From = %+v, want %+v", p, got, want)
		}
	}
}

// TestFrom_refusesOtherParams checks that a View is not put onto params
// other than those it was read from: changed in place, or of another
// length, or with no View carried at all.
func TestFrom_refusesOtherParams(t *testing.T) {
	params := []byte(carryParams[0])
	var v View
	v.Read(params)
	ctx := With(context.Background(), params, &v)
	other := bytes.Replace(params, []byte(`"echo"`), []byte(`"ecxo"`), 1)
	longer := bytes.Replace(params, []byte(`"echo"`), []byte(`"echo2"`), 1)
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		params []byte
	}{
		{"changed", ctx, other},
		{"longer", ctx, longer},
		{"none carried", context.Background(), params},
	} {
		kept := View{Name: []byte("kept")}
		if From(tc.ctx, tc.params, &kept) || string(kept.Name) != "kept" {
			t.Errorf("%s: From took a View (%+v)", tc.name, kept)
		}
	}
	if !From(ctx, bytes.Clone(params), new(View)) {
		t.Error("From refused the params the View was read from")
	}
}

// TestWith_keepsTheParentsValues checks that the context With returns
// is its parent's, with the View beside.
func TestWith_keepsTheParentsValues(t *testing.T) {
	type k struct{}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), k{}, "v"))
	params := []byte(carryParams[0])
	var v View
	v.Read(params)
	ctx := With(parent, params, &v)
	if ctx.Value(k{}) != "v" {
		t.Error("the parent's value is lost")
	}
	cancel()
	<-ctx.Done()
}

// TestFrom_givesSubSlicesAsRead checks that the members From puts onto
// params lie where Read's would, capacity included (what With relies
// on).
func TestFrom_givesSubSlicesAsRead(t *testing.T) {
	params := []byte(carryParams[1])
	var v View
	v.Read(params)
	ctx := With(context.Background(), params, &v)
	cp := append(make([]byte, 0, len(params)+16), params...)
	var got, want View
	want.Read(cp)
	if !From(ctx, cp, &got) {
		t.Fatal("From refused the params the View was read from")
	}
	g, w := got.spans(), want.spans()
	for i := range g {
		if cap(*g[i]) != cap(*w[i]) || len(*g[i]) != len(*w[i]) {
			t.Errorf("member %d: len %d cap %d, Read's len %d cap %d", i, len(*g[i]), cap(*g[i]), len(*w[i]), cap(*w[i]))
		}
	}
}

// spans returns the View's raw members, in a fixed order.
func (m *View) spans() [9]*[]byte {
	return [...]*[]byte{&m.Version, &m.Caps, &m.Info, &m.LogLevel, &m.Responses, &m.State, &m.Progress, &m.Name, &m.Args}
}

// junkView returns a View whose every field is set, so that a field From
// leaves as it was shows.
func junkView() View {
	var v View
	rv := reflect.ValueOf(&v).Elem()
	for i := range rv.NumField() {
		switch f := rv.Field(i); f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			f.SetBytes([]byte("junk"))
		default:
			panic("junkView: a field of another kind: " + rv.Type().Field(i).Name)
		}
	}
	return v
}
