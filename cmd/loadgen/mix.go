package main

import (
	"encoding/json"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"
)

// mixEntry is one call of a -mix file (JSON or YAML):
//
//   - method: subtract
//     params: '[{{rand 100}}, 1]'   # a string is the template itself
//     weight: 3
//   - method: echo
//     params: {"text": "x{{seq}}"}  # any other value is encoded to JSON first
//     expect: {"text": "x1"}
//   - tool: echo                    # with -mcp: tools/call, resources/read, prompts/get
//     args: {"message": "hi"}
//   - method: notify_hello
//     notify: true
//
// The file is a list of entries, or an object holding it as "calls".
type mixEntry struct {
	Method   string  `yaml:"method"`
	Params   any     `yaml:"params"`
	Tool     string  `yaml:"tool"`
	Resource string  `yaml:"resource"`
	Prompt   string  `yaml:"prompt"`
	Args     any     `yaml:"args"`
	Weight   float64 `yaml:"weight"`
	Notify   bool    `yaml:"notify"`
	Expect   any     `yaml:"expect"`
}

// readMix reads a -mix file into calls.
func readMix(path string) ([]call, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var list []mixEntry
	if err := yaml.Unmarshal(b, &list); err != nil {
		var doc struct {
			Calls []mixEntry `yaml:"calls"`
		}
		if err2 := yaml.Unmarshal(b, &doc); err2 != nil {
			return nil, fmt.Errorf("-mix %s: %v", path, err)
		}
		list = doc.Calls
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("-mix %s: no calls", path)
	}
	calls := make([]call, 0, len(list))
	for i, e := range list {
		c, err := e.call()
		if err != nil {
			return nil, fmt.Errorf("-mix %s: entry %d: %v", path, i+1, err)
		}
		calls = append(calls, c)
	}
	return calls, nil
}

// call makes the entry's call.
func (e *mixEntry) call() (call, error) {
	if e.Weight == 0 {
		e.Weight = 1
	}
	params, err := templateText(e.Params)
	if err != nil {
		return call{}, fmt.Errorf("params: %v", err)
	}
	args, err := templateText(e.Args)
	if err != nil {
		return call{}, fmt.Errorf("args: %v", err)
	}
	var expect []byte
	if e.Expect != nil {
		text, err := json.Marshal(e.Expect)
		if err != nil {
			return call{}, fmt.Errorf("expect: %v", err)
		}
		if expect, err = canonical("expect", string(text)); err != nil {
			return call{}, err
		}
	}
	named := 0
	for _, s := range []string{e.Method, e.Tool, e.Resource, e.Prompt} {
		if s != "" {
			named++
		}
	}
	if named != 1 {
		return call{}, fmt.Errorf("name exactly one of method, tool, resource, prompt")
	}
	if e.Method != "" {
		return newCall(e.Method, e.Method, params, e.Weight, e.Notify, expect)
	}
	if e.Notify {
		return call{}, fmt.Errorf("notify: only a method can be sent as a notification")
	}
	return mcpCall(e.Tool, e.Resource, e.Prompt, args, e.Weight, expect)
}

// templateText turns an entry's params or args into template text: a
// string is the text itself, any other value its JSON; nil is "".
func templateText(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}
