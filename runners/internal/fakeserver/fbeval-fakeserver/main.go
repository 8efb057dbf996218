// Command fbeval-fakeserver serves a fake OpenAI-compatible and Anthropic API on a
// local port, so a runner can be tried end to end without a provider or a key. It
// answers every request with a fixed text (a toolcall refusal envelope by default)
// and prints the base URL to use:
//
//	go run ./runners/internal/fakeserver/fbeval-fakeserver --addr 127.0.0.1:8089 &
//	fbeval export toolcall-quick | fbeval-openai --base-url http://127.0.0.1:8089/v1 --model fake | fbeval score toolcall-quick --responses -
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/fbeval/fbeval/runners/internal/fakeserver"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8089", "local address to listen on")
	reply := flag.String("reply", fakeserver.DefaultReply, "the answer to every request")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fbeval-fakeserver: %v\n", err)
		os.Exit(2)
	}
	fmt.Printf("http://%s/v1\n", ln.Addr())
	text := *reply
	srv := fakeserver.New(fakeserver.Options{Reply: func(string) string { return text }})
	if err := http.Serve(ln, srv); err != nil {
		fmt.Fprintf(os.Stderr, "fbeval-fakeserver: %v\n", err)
		os.Exit(1)
	}
}
