module github.com/mcpwire/mcpwire

go 1.26

require (
	github.com/bytedance/sonic v1.15.5
	github.com/google/jsonschema-go v0.4.3
	github.com/panjf2000/ants/v2 v2.12.1
	github.com/valyala/bytebufferpool v1.0.0
	github.com/yosida95/uritemplate/v3 v3.0.2
	go.uber.org/goleak v1.3.0
)

require (
	github.com/bytedance/gopkg v0.1.3 // indirect
	github.com/bytedance/sonic/loader v0.5.3 // indirect
	github.com/cloudwego/base64x v0.1.6 // indirect
	github.com/klauspost/cpuid/v2 v2.2.9 // indirect
	github.com/twitchyliquid64/golang-asm v0.15.1 // indirect
	golang.org/x/arch v0.0.0-20210923205945-b76863e36670 // indirect
	golang.org/x/sync v0.11.0 // indirect
	golang.org/x/sys v0.22.0 // indirect
)
