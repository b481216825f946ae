package mcp_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
)

func resourceServer(t *testing.T) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(nil, nil)
	must(t, srv.AddResource(&mcp.Resource{URI: "test://static-text", Name: "static-text", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{MIMEType: "text/plain", Text: "This is the content of the static text resource."}}}, nil
		}))
	must(t, srv.AddResource(&mcp.Resource{URI: "test://static-binary", Name: "static-binary", MIMEType: "image/png"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://static-binary", MIMEType: "image/png", Blob: []byte("PNG")}}}, nil
		}))
	must(t, srv.AddResource(&mcp.Resource{URI: "test://gone", Name: "gone"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, mcp.ErrResourceNotFound
		}))
	must(t, srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template", MIMEType: "application/json"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{MIMEType: "application/json", Text: `{"id":"` + req.Params.Vars["id"] + `"}`}}}, nil
		}))
	return srv
}

func TestResources_listAndTemplatesList(t *testing.T) {
	cl := newClient(t, resourceServer(t))
	cl.initialize(mcp.LatestVersion)
	raw, err := cl.call("resources/list", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"resources":[{"uri":"test://gone","name":"gone"},{"uri":"test://static-binary","name":"static-binary","mimeType":"image/png"},{"uri":"test://static-text","name":"static-text","mimeType":"text/plain"}]}`
	if string(raw) != want {
		t.Fatalf("got  %s\nwant %s", raw, want)
	}
	raw, err = cl.call("resources/templates/list", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"resourceTemplates":[{"uriTemplate":"test://template/{id}/data","name":"template","mimeType":"application/json"}]}`; string(raw) != want {
		t.Fatalf("got  %s\nwant %s", raw, want)
	}
}

func TestResources_read(t *testing.T) {
	cl := newClient(t, resourceServer(t))
	cl.initialize(mcp.LatestVersion)
	for _, tc := range []struct{ uri, want string }{
		{"test://static-text", `{"contents":[{"uri":"test://static-text","mimeType":"text/plain","text":"This is the content of the static text resource."}]}`},
		{"test://static-binary", `{"contents":[{"uri":"test://static-binary","mimeType":"image/png","blob":"UE5H"}]}`},
		{"test://template/123/data", `{"contents":[{"uri":"test://template/123/data","mimeType":"application/json","text":"{\"id\":\"123\"}"}]}`},
	} {
		raw, err := cl.call("resources/read", map[string]any{"uri": tc.uri})
		if err != nil || string(raw) != tc.want {
			t.Errorf("%s: got %s, %v\nwant %s", tc.uri, raw, err, tc.want)
		}
	}
	var res mcp.ReadResourceResult
	cl.mustCall("resources/read", map[string]any{"uri": "test://static-binary"}, nil)
	raw, _ := cl.call("resources/read", map[string]any{"uri": "test://static-binary"})
	if err := codec.UnmarshalExact(raw, &res); err != nil || string(res.Contents[0].Blob) != "PNG" {
		t.Fatalf("decoded %+v, %v", res.Contents[0], err)
	}
}

func TestResources_unknownIsResourceNotFoundWithTheURI(t *testing.T) {
	cl := newClient(t, resourceServer(t))
	cl.initialize(mcp.LatestVersion)
	for _, uri := range []string{"test://nope", "test://gone", "test://template/1/other"} {
		e := cl.callErr("resources/read", map[string]any{"uri": uri})
		if e.Code != codec.CodeResourceNotFound {
			t.Fatalf("%s: got %v", uri, e)
		}
		data, _ := codec.AppendValue(nil, e.Data)
		if string(data) != `{"uri":"`+uri+`"}` {
			t.Fatalf("%s: data %s", uri, data)
		}
	}
	if e := cl.callErr("resources/read", map[string]any{}); e.Code != codec.CodeInvalidParams {
		t.Fatalf("no uri: got %v", e)
	}
}

// In a synctest bubble: none() waits until every goroutine is blocked,
// so a notification the server would send has been received by then.
func TestResources_subscribeAndUpdated(t *testing.T) {
	synctest.Test(t, testResources_subscribeAndUpdated)
}

func testResources_subscribeAndUpdated(t *testing.T) {
	srv := resourceServer(t)
	a, b := newClient(t, srv), newClient(t, srv)
	a.initialize(mcp.LatestVersion)
	b.initialize(mcp.LatestVersion)
	a.mustCall("resources/subscribe", map[string]any{"uri": "test://static-text"}, nil)
	if !a.ss.Subscribed("test://static-text") || b.ss.Subscribed("test://static-text") {
		t.Fatal("subscription not recorded where it belongs")
	}
	must(t, srv.ResourceUpdated(context.Background(), "test://static-text"))
	n := a.next()
	if n.method != "notifications/resources/updated" || string(n.params) != `{"uri":"test://static-text"}` {
		t.Fatalf("got %s %s", n.method, n.params)
	}
	b.none()
	must(t, srv.ResourceUpdated(context.Background(), "test://other"))
	a.mustCall("resources/unsubscribe", map[string]any{"uri": "test://static-text"}, nil)
	must(t, srv.ResourceUpdated(context.Background(), "test://static-text"))
	a.none()
}

func TestResources_subscribeHandlerMayRefuse(t *testing.T) {
	srv := mcp.NewServer(nil, &mcp.ServerOptions{SubscribeHandler: func(_ context.Context, req *mcp.SubscribeRequest) error {
		if strings.HasPrefix(req.Params.URI, "secret://") {
			return codec.NewError(codec.CodeForbidden, "Forbidden")
		}
		return nil
	}})
	cl := newClient(t, srv)
	cl.initialize(mcp.LatestVersion)
	if e := cl.callErr("resources/subscribe", map[string]any{"uri": "secret://x"}); e.Code != codec.CodeForbidden {
		t.Fatalf("got %v", e)
	}
	cl.mustCall("resources/subscribe", map[string]any{"uri": "open://x"}, nil)
}

func TestResources_subscriptionsEndWithTheSession(t *testing.T) {
	srv := resourceServer(t)
	cl := newClient(t, srv)
	cl.initialize(mcp.LatestVersion)
	cl.mustCall("resources/subscribe", map[string]any{"uri": "test://static-text"}, nil)
	cl.c.Close()
	cl.ss.Wait()
	if cl.ss.Subscribed("test://static-text") || len(srv.Sessions()) != 0 {
		t.Fatal("a closed session keeps its subscriptions")
	}
	must(t, srv.ResourceUpdated(context.Background(), "test://static-text"))
}
