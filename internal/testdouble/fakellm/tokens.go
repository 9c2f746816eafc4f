package fakellm

import (
	"embed"
	"hash/fnv"
	"io/fs"
	"path"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Counting tokens per script, as the servers the project was measured
// against count them: Ollama 0.34.4 and llama-server serving a model on
// the Phi-3 tokenizer (SentencePiece, 32k pieces) read an English corpus
// as 0.9 times runes/4 tokens, a figure-heavy one as 2.24 times and a
// Chinese one as 5.9 times. ScriptTokens imitates such a tokenizer piece
// by piece — a space joins the word after it, a word is one piece or is
// split where a made-up vocabulary has no longer piece, every digit is a
// piece, a Han character is one piece or, outside the vocabulary, three
// byte pieces — and on the corpora under testdata/corpora it gives those
// ratios (TestScriptTokensRatios).

// CountByScript makes every endpoint count prompt tokens with
// ScriptTokens instead of runes/4 (ApproxTokens): generations, /tokenize,
// the cut and the refusals of an over-long prompt.
func CountByScript() Option { return func(c *config) { c.byScript = true } }

// DenseScripts makes CountByScript count CJK characters and digits q times
// as ScriptTokens does, as a tokenizer whose vocabulary has fewer of them
// than prefrag's estimate assumes (one without Chinese pieces reads every
// Han character as three bytes); words are counted as before.
func DenseScripts(q float64) Option { return func(c *config) { c.byScript, c.dense = true, q } }

// Ratios of the servers' counts over runes/4 measured on real corpora,
// which ScriptTokens reproduces on the corpora of Corpus.
const (
	RatioEnglish = 0.9
	RatioFigures = 2.24
	RatioChinese = 5.9
)

// ScriptTokens counts the tokens of s as a 32k SentencePiece tokenizer
// would (see above).
func ScriptTokens(s string) int {
	words, others := scriptTokens(s)
	return words + others
}

// scriptTokens counts the pieces of s: those of words and spaces, and
// the others (digits, CJK characters, symbols).
func scriptTokens(s string) (words, others int) {
	n, o := 0, 0
	spaces := 0 // a run of spaces waits: its last joins what follows
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == ' ' {
			spaces++
			i += size
			continue
		}
		n += (spaces + 2) / spacePiece // the spaces before the last: pieces of up to four
		space := spaces > 0
		spaces = 0
		if isWordRune(r) {
			j := i
			for j < len(s) {
				q, sz := utf8.DecodeRuneInString(s[j:])
				if !isWordRune(q) {
					break
				}
				j += sz
			}
			n += wordPieces(s[i:j])
			i = j
			continue
		}
		o += runePieces(r, space)
		i += size
	}
	if spaces > 0 {
		n += 1 + (spaces+2)/spacePiece
	}
	return n, o
}

// spacePiece is the longest run of spaces the vocabulary has as a piece.
const spacePiece = 4

// isWordRune: letters that a SentencePiece vocabulary joins into pieces
// (not Han, kana or Hangul, which are pieces one by one).
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) && !unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// wordPieces splits a word into the pieces of a made-up vocabulary: from
// the start, the longest piece it has is 5 to 10 letters long (chosen by a
// hash of the letters so far); letters outside the Latin script make
// pieces of at most two. A leading space joins the first piece.
func wordPieces(w string) int {
	runes := []rune(strings.ToLower(w))
	n := 0
	for len(runes) > 0 {
		longest := 2
		if unicode.Is(unicode.Latin, runes[0]) {
			longest = 5 + int(hash(string(runes))%6)
		}
		take := min(longest, len(runes))
		runes = runes[take:]
		n++
	}
	return n
}

// runePieces counts one character that is not part of a word: a digit, a
// mark, a Han character, a symbol. A space before it is a piece of its own
// before a digit or a CJK character, and joins punctuation.
func runePieces(r rune, space bool) int {
	lead := 0
	if space && (unicode.IsDigit(r) || unicode.In(r, unicode.Han, unicode.Hangul, unicode.Hiragana, unicode.Katakana) || r == '\n') {
		lead = 1
	}
	switch {
	case unicode.Is(unicode.Han, r):
		if hash(string(r))%100 < hanOutside {
			return lead + utf8.RuneLen(r) // byte pieces
		}
		return lead + 1
	case unicode.In(r, unicode.Hiragana, unicode.Katakana):
		return lead + 1
	case unicode.Is(unicode.Hangul, r):
		return lead + 2
	case r > 0xFFFF:
		return lead + utf8.RuneLen(r)
	}
	return lead + 1
}

// hanOutside is the share (percent) of Han characters outside the
// vocabulary, which become three byte pieces.
const hanOutside = 29

func hash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// countTokens is how this server counts a prompt: ScriptTokens with
// CountByScript, else runes/4.
func (s *Server) countTokens(text string) int {
	if !s.cfg.byScript {
		return max(1, ApproxTokens(text))
	}
	words, others := scriptTokens(text)
	if s.cfg.dense > 0 {
		others = int(float64(others) * s.cfg.dense)
	}
	return max(1, words+others)
}

//go:embed testdata/corpora
var corpora embed.FS

// Corpus returns the documents of one of the project's own test corpora
// ("english", "figures", "chinese"), by file name, in name order: short
// texts about the same small river town, written for the project.
func Corpus(name string) (names []string, texts map[string]string) {
	dir := path.Join("testdata/corpora", name)
	entries, err := fs.ReadDir(corpora, dir)
	if err != nil {
		return nil, nil
	}
	texts = map[string]string{}
	for _, e := range entries {
		b, err := corpora.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		names = append(names, e.Name())
		texts[e.Name()] = string(b)
	}
	sort.Strings(names)
	return names, texts
}
