package demoserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/mcp"
)

// The resources, resource template, prompts and completions of the MCP
// conformance suite (shared/CONFORMANCE.md §1).

const (
	watchedURI  = "test://watched-resource"
	templateURI = "test://template/{id}/data"
)

// addResources registers the resources and the template.
func (d *demo) addResources() error {
	s := d.srv
	static := func(c *mcp.ResourceContents) mcp.ResourceHandler {
		return func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
		}
	}
	return errors.Join(
		s.AddResource(&mcp.Resource{
			URI: "test://static-text", Name: "static-text", Title: "Static text",
			Description: "A text resource that never changes", MIMEType: "text/plain",
		}, static(&mcp.ResourceContents{
			URI: "test://static-text", MIMEType: "text/plain", Text: "This is the content of the static text resource.",
		})),
		s.AddResource(&mcp.Resource{
			URI: "test://static-binary", Name: "static-binary", Title: "Static binary",
			Description: "A binary resource (a 1x1 PNG) that never changes", MIMEType: "image/png",
		}, static(&mcp.ResourceContents{URI: "test://static-binary", MIMEType: "image/png", Blob: pngPixel})),
		s.AddResource(&mcp.Resource{
			URI: watchedURI, Name: "watched-resource", Title: "Watched resource",
			Description: "Changes every few moments while a session is subscribed to it (notifications/resources/updated)",
			MIMEType:    "text/plain",
		}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
				URI: watchedURI, MIMEType: "text/plain",
				Text: fmt.Sprintf("Watched resource content, version %d.", d.watched.Load()),
			}}}, nil
		}),
		s.AddResourceTemplate(&mcp.ResourceTemplate{
			URITemplate: templateURI, Name: "template-data", Title: "Data by id",
			Description: "JSON data for any id", MIMEType: "application/json",
		}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id := req.Params.Vars["id"]
			data, err := json.Marshal(struct {
				ID           string `json:"id"`
				TemplateTest bool   `json:"templateTest"`
				Data         string `json:"data"`
			}{id, true, "Data for ID: " + id})
			if err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{MIMEType: "application/json", Text: string(data)}}}, nil
		}),
	)
}

// userText is a user message of one text block.
func userText(s string) *mcp.PromptMessage {
	return &mcp.PromptMessage{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: s}}
}

// addPrompts registers the prompts.
func addPrompts(s *mcp.Server) error {
	messages := func(ms ...*mcp.PromptMessage) *mcp.GetPromptResult {
		return &mcp.GetPromptResult{Messages: ms}
	}
	return errors.Join(
		s.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Description: "A prompt without arguments"},
			func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return messages(userText("This is a simple prompt for testing.")), nil
			}),
		s.AddPrompt(&mcp.Prompt{
			Name: "test_prompt_with_arguments", Description: "A prompt with two required arguments",
			Arguments: []*mcp.PromptArgument{
				{Name: "arg1", Description: "First test argument", Required: true},
				{Name: "arg2", Description: "Second test argument", Required: true},
			},
		}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			return messages(userText(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"]))), nil
		}),
		s.AddPrompt(&mcp.Prompt{
			Name: "test_prompt_with_embedded_resource", Description: "A prompt that embeds a resource",
			Arguments: []*mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}},
		}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return messages(
				&mcp.PromptMessage{Role: mcp.RoleUser, Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
					URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing.",
				}}},
				userText("Please process the embedded resource above."),
			), nil
		}),
		s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_image", Description: "A prompt with an image"},
			func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return messages(
					&mcp.PromptMessage{Role: mcp.RoleUser, Content: &mcp.ImageContent{Data: pngPixel, MIMEType: "image/png"}},
					userText("Please analyze the image above."),
				), nil
			}),
	)
}

// Values completion/complete offers.
var (
	arg1Values = []string{"paris", "park", "party", "test-value-1", "test-value-2"}
	arg2Values = []string{"world", "wide", "web"}
	idValues   = []string{"1", "2", "3", "123"}
)

// complete serves completion/complete: the arguments of
// test_prompt_with_arguments and the id of the template, the values that
// begin with what was typed.
func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	var from []string
	switch {
	case p.Ref.Type == mcp.RefPrompt && p.Ref.Name == "test_prompt_with_arguments":
		switch p.Argument.Name {
		case "arg1":
			from = arg1Values
		case "arg2":
			from = arg2Values
		}
	case p.Ref.Type == mcp.RefResource && p.Ref.URI == templateURI && p.Argument.Name == "id":
		from = idValues
	}
	values := []string{}
	for _, v := range from {
		if strings.HasPrefix(v, p.Argument.Value) {
			values = append(values, v)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionValues{Values: values, Total: len(values)}}, nil
}
