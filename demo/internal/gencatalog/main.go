// Command gencatalog writes the demo's bundled tool catalog (see package
// catalogdef).
//
//	go generate ./demo
package main

import (
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/agent-dev/agent/demo/internal/catalogdef"
)

func main() {
	out := flag.String("o", "catalog.json", "output file")
	flag.Parse()
	b, err := catalogdef.JSON()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "wrote %d tools to %s\n", len(catalogdef.Build()), *out)
}
