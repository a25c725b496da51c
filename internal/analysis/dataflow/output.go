package dataflow

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/awalterschulze/gographviz"
)

// colours of the edges in DOT, by status.
var colours = map[Status]string{Manifest: "red", Benign: "gray", Untested: "orange"}

// DOT returns the graph in Graphviz's language: one node per test, one
// edge reader -> writer per data dependency, labelled with its roots and
// coloured by status (red manifest, gray benign, orange untested).
func (g *Graph) DOT() (string, error) {
	d := gographviz.NewEscape()
	if err := d.SetName("dataflow"); err != nil {
		return "", err
	}
	if err := d.SetDir(true); err != nil {
		return "", err
	}
	nodes := map[string]bool{}
	for _, e := range g.Edges {
		for _, t := range []string{e.Reader, e.Writer} {
			if !nodes[t] {
				nodes[t] = true
				if err := d.AddNode("dataflow", t, nil); err != nil {
					return "", fmt.Errorf("graph node %s: %w", t, err)
				}
			}
		}
		var roots []string
		for _, r := range e.Roots {
			roots = append(roots, r.Name)
		}
		attrs := map[string]string{
			"label": strings.Join(roots, ", "),
			"color": colours[e.Status],
		}
		if err := d.AddEdge(e.Reader, e.Writer, true, attrs); err != nil {
			return "", fmt.Errorf("graph edge %s -> %s: %w", e.Reader, e.Writer, err)
		}
	}
	return d.String(), nil
}

// Write writes the graph as DOT to path and as JSON to path + ".json".
func (g *Graph) Write(path string) error {
	dot, err := g.DOT()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(dot), 0o644); err != nil {
		return fmt.Errorf("write dependency graph: %w", err)
	}
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return fmt.Errorf("encode dependency graph: %w", err)
	}
	if err := os.WriteFile(path+".json", append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write dependency graph: %w", err)
	}
	return nil
}
