// Package demo is what `prefrag demo` runs on instead of a model server and
// the web, so that a new user sees the whole loop without installing a
// model: a sample corpus (Markdown files about the fictional island of
// Velloran, embedded), a scripted model that plays the reasoning model and
// the selection judge for the demo's sample questions, and a web stand-in
// (a few canned pages, searched in process: nothing leaves the machine).
//
// Everything here is labelled: the model calls itself ModelName, the web
// source is Web ("web:stand-in"), and the pages say they are stand-ins.
// The model reads its prompts (the question, the numbered documents of the
// observations, the judge's sections) and follows a script; it does not
// reason. Outside its sample questions it searches once and quotes what it
// found, and says that it is a script.
package demo

import (
	"embed"
	"io/fs"
)

// ModelName is the scripted model's name: the header, the status line,
// the exports and the session's config all show it.
const ModelName = "scripted demo"

// Backend is what the session's config records as the LLM backend, and
// Server as its address: there is no server.
const (
	Backend = "scripted-demo"
	Server  = "in process (no model server)"
)

// WebName is the web stand-in's engine name; the source is "web:" +
// WebName.
const WebName = "stand-in"

// CorpusName is the sample corpus's name in the demo's home.
const CorpusName = "demo"

//go:embed corpus/*.md
var corpus embed.FS

// Corpus returns the sample corpus's Markdown files (corpus/*.md).
func Corpus() fs.FS {
	sub, err := fs.Sub(corpus, "corpus")
	if err != nil {
		panic("demo: " + err.Error()) // the embed pattern names the folder
	}
	return sub
}

// Questions are the sample questions the scripted model can answer, the
// first one the demo asks (it goes to the web stand-in); later ones are
// recalled in the question box with the Up key.
func Questions() []string {
	out := make([]string, len(samples))
	for i, s := range samples {
		out[i] = s.question
	}
	return out
}
