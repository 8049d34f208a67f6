/// \file
/// `ferry matrix RESULTS.json [--markdown OUT.md] [--html OUT.html]`: turns
/// the results of compat-tests/run-matrix into the compatibility matrix page
/// (DESIGN.md: the matrix is data, the page is generated from the results).
///
/// Markdown: apps as rows, variants as columns, ✅/❌ cells whose reasons are
/// numbered below the table, a summary line and the labels of each app. It
/// holds no run times or dates, so a fresh run that behaves the same gives
/// the same bytes and compat-tests/MATRIX.md can be checked for staleness.
/// HTML: one self-contained page (inline CSS, no external assets) with the
/// same cells, reasons as tooltips and as a list, and the run times.
///
/// The tool links only ferry_support, so it reads JSON with the small strict
/// parser below; bad input is reported with its position, never trusted.
#include "tools/Command.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace ferry::tool {
namespace {

// --- JSON --------------------------------------------------------------------

struct JsonValue {
  enum Kind { Null, Bool, Number, String, Array, Object } K = Null;
  bool B = false;
  double N = 0;
  std::string S;
  std::vector<JsonValue> Items;
  std::vector<std::pair<std::string, JsonValue>> Members;

  const JsonValue *get(std::string_view Key) const {
    for (const auto &[Name, V] : Members)
      if (Name == Key)
        return &V;
    return nullptr;
  }
};

/// A recursive-descent parser for RFC 8259 JSON. Nesting is bounded so a
/// hostile file cannot exhaust the stack.
class JsonParser {
public:
  explicit JsonParser(std::string_view Text) : Text(Text) {}

  bool parse(JsonValue &Out, std::string &Error) {
    skipSpace();
    bool Ok = value(Out, 0);
    if (Ok) {
      skipSpace();
      Ok = Pos == Text.size() || fail("trailing characters after the document");
    }
    Error = Message;
    return Ok;
  }

private:
  static constexpr int MaxDepth = 64;
  std::string_view Text;
  size_t Pos = 0;
  std::string Message;

  bool fail(const std::string &What) {
    if (Message.empty()) {
      size_t Line = 1, Col = 1;
      for (size_t I = 0; I < Pos && I < Text.size(); ++I, ++Col)
        if (Text[I] == '\n')
          ++Line, Col = 0;
      Message = "line " + std::to_string(Line) + ", column " + std::to_string(Col) + ": " + What;
    }
    return false;
  }
  void skipSpace() {
    while (Pos < Text.size() &&
           (Text[Pos] == ' ' || Text[Pos] == '\t' || Text[Pos] == '\n' || Text[Pos] == '\r'))
      ++Pos;
  }
  bool literal(std::string_view Word) {
    if (Text.substr(Pos, Word.size()) != Word)
      return fail("unexpected character");
    Pos += Word.size();
    return true;
  }

  bool value(JsonValue &Out, int Depth) {
    if (Depth > MaxDepth)
      return fail("nested too deeply");
    if (Pos >= Text.size())
      return fail("unexpected end of input");
    char C = Text[Pos];
    if (C == '{')
      return object(Out, Depth);
    if (C == '[')
      return array(Out, Depth);
    if (C == '"') {
      Out.K = JsonValue::String;
      return string(Out.S);
    }
    if (C == 't' || C == 'f') {
      Out.K = JsonValue::Bool;
      Out.B = C == 't';
      return literal(Out.B ? "true" : "false");
    }
    if (C == 'n') {
      Out.K = JsonValue::Null;
      return literal("null");
    }
    return number(Out);
  }

  bool object(JsonValue &Out, int Depth) {
    Out.K = JsonValue::Object;
    ++Pos;
    skipSpace();
    if (Pos < Text.size() && Text[Pos] == '}')
      return ++Pos, true;
    while (true) {
      skipSpace();
      std::string Key;
      if (Pos >= Text.size() || Text[Pos] != '"')
        return fail("expected a member name");
      if (!string(Key))
        return false;
      skipSpace();
      if (Pos >= Text.size() || Text[Pos] != ':')
        return fail("expected ':'");
      ++Pos;
      skipSpace();
      JsonValue V;
      if (!value(V, Depth + 1))
        return false;
      Out.Members.emplace_back(std::move(Key), std::move(V));
      skipSpace();
      if (Pos < Text.size() && Text[Pos] == ',') {
        ++Pos;
        continue;
      }
      if (Pos < Text.size() && Text[Pos] == '}')
        return ++Pos, true;
      return fail("expected ',' or '}'");
    }
  }

  bool array(JsonValue &Out, int Depth) {
    Out.K = JsonValue::Array;
    ++Pos;
    skipSpace();
    if (Pos < Text.size() && Text[Pos] == ']')
      return ++Pos, true;
    while (true) {
      skipSpace();
      JsonValue V;
      if (!value(V, Depth + 1))
        return false;
      Out.Items.push_back(std::move(V));
      skipSpace();
      if (Pos < Text.size() && Text[Pos] == ',') {
        ++Pos;
        continue;
      }
      if (Pos < Text.size() && Text[Pos] == ']')
        return ++Pos, true;
      return fail("expected ',' or ']'");
    }
  }

  bool hex4(unsigned &Out) {
    Out = 0;
    for (int I = 0; I < 4; ++I, ++Pos) {
      if (Pos >= Text.size())
        return fail("unexpected end of input in \\u escape");
      char C = Text[Pos];
      unsigned D = C >= '0' && C <= '9'   ? C - '0'
                   : C >= 'a' && C <= 'f' ? C - 'a' + 10
                   : C >= 'A' && C <= 'F' ? C - 'A' + 10
                                          : 16;
      if (D == 16)
        return fail("bad \\u escape");
      Out = Out * 16 + D;
    }
    return true;
  }

  static void appendUtf8(std::string &S, unsigned Cp) {
    if (Cp < 0x80) {
      S += char(Cp);
    } else if (Cp < 0x800) {
      S += char(0xC0 | Cp >> 6);
      S += char(0x80 | (Cp & 0x3F));
    } else if (Cp < 0x10000) {
      S += char(0xE0 | Cp >> 12);
      S += char(0x80 | (Cp >> 6 & 0x3F));
      S += char(0x80 | (Cp & 0x3F));
    } else {
      S += char(0xF0 | Cp >> 18);
      S += char(0x80 | (Cp >> 12 & 0x3F));
      S += char(0x80 | (Cp >> 6 & 0x3F));
      S += char(0x80 | (Cp & 0x3F));
    }
  }

  bool string(std::string &Out) {
    ++Pos; // the opening quote
    while (true) {
      if (Pos >= Text.size())
        return fail("unterminated string");
      unsigned char C = Text[Pos++];
      if (C == '"')
        return true;
      if (C < 0x20)
        return --Pos, fail("control character in string");
      if (C != '\\') {
        Out += char(C);
        continue;
      }
      if (Pos >= Text.size())
        return fail("unterminated string");
      char E = Text[Pos++];
      switch (E) {
      case '"': Out += '"'; break;
      case '\\': Out += '\\'; break;
      case '/': Out += '/'; break;
      case 'b': Out += '\b'; break;
      case 'f': Out += '\f'; break;
      case 'n': Out += '\n'; break;
      case 'r': Out += '\r'; break;
      case 't': Out += '\t'; break;
      case 'u': {
        unsigned Cp;
        if (!hex4(Cp))
          return false;
        if (Cp >= 0xD800 && Cp < 0xDC00) {
          unsigned Lo;
          if (Text.substr(Pos, 2) != "\\u")
            return fail("unpaired surrogate");
          Pos += 2;
          if (!hex4(Lo))
            return false;
          if (Lo < 0xDC00 || Lo >= 0xE000)
            return fail("unpaired surrogate");
          Cp = 0x10000 + ((Cp - 0xD800) << 10) + (Lo - 0xDC00);
        } else if (Cp >= 0xDC00 && Cp < 0xE000) {
          return fail("unpaired surrogate");
        }
        appendUtf8(Out, Cp);
        break;
      }
      default:
        return --Pos, fail("bad escape");
      }
    }
  }

  bool number(JsonValue &Out) {
    size_t Start = Pos;
    auto Digits = [&] {
      size_t S = Pos;
      while (Pos < Text.size() && Text[Pos] >= '0' && Text[Pos] <= '9')
        ++Pos;
      return Pos > S;
    };
    if (Pos < Text.size() && Text[Pos] == '-')
      ++Pos;
    if (!Digits())
      return Pos = Start, fail("unexpected character");
    if (Pos < Text.size() && Text[Pos] == '.' && (++Pos, !Digits()))
      return fail("digits expected after '.'");
    if (Pos < Text.size() && (Text[Pos] == 'e' || Text[Pos] == 'E')) {
      ++Pos;
      if (Pos < Text.size() && (Text[Pos] == '+' || Text[Pos] == '-'))
        ++Pos;
      if (!Digits())
        return fail("digits expected in exponent");
    }
    Out.K = JsonValue::Number;
    Out.N = std::strtod(std::string(Text.substr(Start, Pos - Start)).c_str(), nullptr);
    return true;
  }
};

// --- The results model ----------------------------------------------------------

/// Verdicts as run-matrix writes them, best first.
const char *const Verdicts[] = {"pass", "fail", "no-golden", "timeout", "build-error"};

struct Cell {
  std::string Verdict, Reason;
  double Seconds = 0;
  int Note = 0; ///< Index into Matrix::Notes, from 1; 0 for a pass.
};

struct Matrix {
  std::string Backend, Date;
  double WallSeconds = -1;
  std::vector<std::string> Variants; ///< Column order.
  std::map<std::string, std::vector<std::string>> Labels;
  std::map<std::string, std::map<std::string, Cell>> Rows; ///< app -> variant -> cell.
  std::vector<std::string> Notes;                           ///< "verdict: reason", numbered from 1.
};

std::optional<std::string> stringMember(const JsonValue &O, const char *Key, std::string &Error,
                                        const std::string &Where, bool Required = true) {
  const JsonValue *V = O.get(Key);
  if (!V) {
    if (Required)
      Error = Where + ": missing \"" + Key + "\"";
    return std::nullopt;
  }
  if (V->K != JsonValue::String) {
    Error = Where + ": \"" + Key + "\" is not a string";
    return std::nullopt;
  }
  return V->S;
}

/// Builds the matrix from parsed results; returns false with Error set when
/// the document does not have the shape run-matrix writes.
bool buildMatrix(const JsonValue &Doc, Matrix &M, std::string &Error) {
  if (Doc.K != JsonValue::Object)
    return Error = "the top level is not an object", false;
  const JsonValue *Results = Doc.get("results");
  if (!Results || Results->K != JsonValue::Array)
    return Error = "no \"results\" array", false;
  if (auto B = stringMember(Doc, "backend", Error, "top level", false))
    M.Backend = *B;
  if (auto D = stringMember(Doc, "date", Error, "top level", false))
    M.Date = *D;
  if (!Error.empty())
    return false;
  if (const JsonValue *W = Doc.get("wall_seconds"); W && W->K == JsonValue::Number)
    M.WallSeconds = W->N;
  if (const JsonValue *Vs = Doc.get("variants")) {
    if (Vs->K != JsonValue::Array)
      return Error = "\"variants\" is not an array", false;
    for (const JsonValue &V : Vs->Items) {
      if (V.K != JsonValue::String)
        return Error = "\"variants\" holds a non-string", false;
      if (std::find(M.Variants.begin(), M.Variants.end(), V.S) == M.Variants.end())
        M.Variants.push_back(V.S);
    }
  }
  if (const JsonValue *Apps = Doc.get("apps")) {
    if (Apps->K != JsonValue::Object)
      return Error = "\"apps\" is not an object", false;
    for (const auto &[App, Info] : Apps->Members) {
      const JsonValue *L = Info.K == JsonValue::Object ? Info.get("labels") : nullptr;
      if (!L)
        continue;
      if (L->K != JsonValue::Array)
        return Error = "apps." + App + ".labels is not an array", false;
      for (const JsonValue &V : L->Items) {
        if (V.K != JsonValue::String)
          return Error = "apps." + App + ".labels holds a non-string", false;
        M.Labels[App].push_back(V.S);
      }
      std::sort(M.Labels[App].begin(), M.Labels[App].end());
    }
  }
  std::set<std::string> Extra;
  for (size_t I = 0; I < Results->Items.size(); ++I) {
    const JsonValue &R = Results->Items[I];
    std::string Where = "results[" + std::to_string(I) + "]";
    if (R.K != JsonValue::Object)
      return Error = Where + " is not an object", false;
    auto App = stringMember(R, "app", Error, Where);
    auto Variant = App ? stringMember(R, "variant", Error, Where) : std::nullopt;
    auto Verdict = Variant ? stringMember(R, "verdict", Error, Where) : std::nullopt;
    if (!Verdict)
      return false;
    if (std::find(std::begin(Verdicts), std::end(Verdicts), *Verdict) == std::end(Verdicts))
      return Error = Where + ": unknown verdict \"" + *Verdict + "\"", false;
    Cell C;
    C.Verdict = *Verdict;
    if (auto Reason = stringMember(R, "reason", Error, Where, false))
      C.Reason = *Reason;
    if (!Error.empty())
      return false;
    if (const JsonValue *S = R.get("seconds"); S && S->K == JsonValue::Number)
      C.Seconds = S->N;
    if (!M.Rows[*App].emplace(*Variant, C).second)
      return Error = Where + ": " + *App + "/" + *Variant + " appears twice", false;
    if (std::find(M.Variants.begin(), M.Variants.end(), *Variant) == M.Variants.end())
      Extra.insert(*Variant);
  }
  M.Variants.insert(M.Variants.end(), Extra.begin(), Extra.end());
  // Keep only columns that hold a cell, in their given order.
  std::erase_if(M.Variants, [&](const std::string &V) {
    return std::none_of(M.Rows.begin(), M.Rows.end(), [&](auto &Row) { return Row.second.count(V); });
  });
  // Number the distinct reasons in reading order: rows sorted, then columns.
  std::map<std::string, int> Numbers;
  for (auto &[App, Row] : M.Rows)
    for (const std::string &V : M.Variants) {
      auto It = Row.find(V);
      if (It == Row.end() || It->second.Verdict == "pass")
        continue;
      std::string Note = It->second.Verdict + (It->second.Reason.empty() ? "" : ": " + It->second.Reason);
      auto [N, Fresh] = Numbers.emplace(Note, int(M.Notes.size()) + 1);
      if (Fresh)
        M.Notes.push_back(Note);
      It->second.Note = N->second;
    }
  return true;
}

struct Summary {
  size_t Cells = 0, Passed = 0, Apps = 0, AppsAllPassed = 0;
  std::map<std::string, size_t> ByVerdict;
};

Summary summarize(const Matrix &M) {
  Summary S;
  for (const auto &[App, Row] : M.Rows) {
    bool All = true;
    for (const auto &[V, C] : Row) {
      ++S.Cells;
      ++S.ByVerdict[C.Verdict];
      S.Passed += C.Verdict == "pass";
      All &= C.Verdict == "pass";
    }
    ++S.Apps;
    S.AppsAllPassed += All;
  }
  return S;
}

std::string percent(size_t Part, size_t Whole) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.1f%%", Whole ? 100.0 * double(Part) / double(Whole) : 0.0);
  return Buf;
}

std::string summaryLine(const Matrix &M) {
  Summary S = summarize(M);
  std::string Line = std::to_string(S.Passed) + " of " + std::to_string(S.Cells) + " cells pass (" +
                     percent(S.Passed, S.Cells) + "); " + std::to_string(S.AppsAllPassed) + " of " +
                     std::to_string(S.Apps) + " apps pass in every variant.";
  std::string Rest;
  for (const char *V : Verdicts)
    if (std::string_view(V) != "pass" && S.ByVerdict.count(V))
      Rest.append(Rest.empty() ? "" : ", ").append(std::to_string(S.ByVerdict.at(V))).append(" ").append(V);
  return Rest.empty() ? Line : Line + " Not passing: " + Rest + ".";
}

/// Label -> (apps carrying it, of which pass in every variant).
std::map<std::string, std::pair<int, int>> labelCounts(const Matrix &M) {
  std::map<std::string, std::pair<int, int>> Out;
  for (const auto &[App, Row] : M.Rows) {
    bool All = std::all_of(Row.begin(), Row.end(), [](auto &C) { return C.second.Verdict == "pass"; });
    auto It = M.Labels.find(App);
    if (It == M.Labels.end())
      continue;
    for (const std::string &L : It->second) {
      ++Out[L].first;
      Out[L].second += All;
    }
  }
  return Out;
}

// --- Markdown ------------------------------------------------------------------

/// Escapes text for a Markdown paragraph or table cell.
std::string mdEscape(std::string_view S) {
  std::string Out;
  for (char C : S) {
    if (std::string_view("\\`*_[]<>|#").find(C) != std::string_view::npos)
      Out += '\\';
    Out += C == '\n' ? ' ' : C;
  }
  return Out;
}

/// A code span for a label: backticks in it are impossible in apps.toml's
/// label style, but are replaced rather than trusted.
std::string mdCode(std::string S) {
  std::replace(S.begin(), S.end(), '`', '\'');
  std::string Out;
  for (char C : S)
    Out += C == '|' ? std::string("\\|") : std::string(1, C);
  return "`" + Out + "`";
}

std::string markdown(const Matrix &M) {
  std::ostringstream O;
  O << "# ferry compatibility matrix\n\n"
    << "<!-- Generated by `ferry matrix` from the results of compat-tests/run-matrix; do not edit. -->\n\n"
    << "Each app of `compat-tests/apps.toml`, built by nvcc in each of its variants and run under ferry's "
    << (M.Backend.empty() ? std::string("") : mdEscape(M.Backend) + " ")
    << "backend, compared with what it printed on an NVIDIA GPU (`compat-tests/goldens`). "
    << "✅ same output and exit code; ❌ not, for the numbered reason below the table; "
    << "an empty cell: the app is not built in that variant.\n\n"
    << "**" << mdEscape(summaryLine(M)) << "**\n\n";
  O << "| app |";
  for (const std::string &V : M.Variants)
    O << " " << mdEscape(V) << " |";
  O << " labels |\n|---|";
  for (size_t I = 0; I < M.Variants.size(); ++I)
    O << ":-:|";
  O << "---|\n";
  for (const auto &[App, Row] : M.Rows) {
    O << "| " << mdEscape(App) << " |";
    for (const std::string &V : M.Variants) {
      auto It = Row.find(V);
      if (It == Row.end())
        O << " |";
      else if (It->second.Verdict == "pass")
        O << " ✅ |";
      else
        O << " ❌ " << It->second.Note << " |";
    }
    std::string Labels;
    if (auto It = M.Labels.find(App); It != M.Labels.end())
      for (const std::string &L : It->second)
        Labels.append(Labels.empty() ? "" : " ").append(mdCode(L));
    O << " " << Labels << " |\n";
  }
  if (!M.Notes.empty()) {
    O << "\n## Reasons\n\n";
    for (size_t I = 0; I < M.Notes.size(); ++I)
      O << I + 1 << ". " << mdEscape(M.Notes[I]) << "\n";
  }
  auto Counts = labelCounts(M);
  if (!Counts.empty()) {
    O << "\n## Labels\n\nApps exercising each feature, and how many of them pass in every variant.\n\n"
      << "| label | apps | passing |\n|---|--:|--:|\n";
    for (const auto &[L, C] : Counts)
      O << "| " << mdCode(L) << " | " << C.first << " | " << C.second << " |\n";
  }
  return O.str();
}

// --- HTML ----------------------------------------------------------------------

std::string htmlEscape(std::string_view S) {
  std::string Out;
  for (char C : S) {
    switch (C) {
    case '&': Out += "&amp;"; break;
    case '<': Out += "&lt;"; break;
    case '>': Out += "&gt;"; break;
    case '"': Out += "&quot;"; break;
    case '\'': Out += "&#39;"; break;
    default: Out += C;
    }
  }
  return Out;
}

std::string seconds(double S) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.2f s", S);
  return Buf;
}

std::string html(const Matrix &M) {
  std::ostringstream O;
  O << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<title>ferry compatibility matrix</title>\n<style>\n"
    << "body{font-family:system-ui,sans-serif;margin:2em;color:#222}\n"
    << "table{border-collapse:collapse;margin:1em 0}\n"
    << "th,td{border:1px solid #ccc;padding:.25em .5em;text-align:center}\n"
    << "th.app,td.labels{text-align:left}\n"
    << "td.pass{background:#e3f6e3}\ntd.notpass{background:#fbe4e4}\ntd.none{background:#f4f4f4}\n"
    << "td small{display:block;color:#666;font-size:.75em}\n"
    << "code{background:#f0f0f0;padding:0 .2em;margin:0 .1em;font-size:.85em}\n"
    << "ol li{margin:.2em 0}\n</style>\n</head>\n<body>\n"
    << "<h1>ferry compatibility matrix</h1>\n<p>Each app of <code>compat-tests/apps.toml</code>, built by nvcc "
    << "in each of its variants and run under ferry's " << htmlEscape(M.Backend)
    << " backend, compared with what it printed on an NVIDIA GPU. Hover a cell for its reason.</p>\n"
    << "<p><strong>" << htmlEscape(summaryLine(M)) << "</strong></p>\n<p>";
  if (!M.Date.empty())
    O << "Run: " << htmlEscape(M.Date) << ". ";
  if (M.WallSeconds >= 0)
    O << "Wall time: " << seconds(M.WallSeconds) << ". ";
  O << "Cells show the program's run time under ferry.</p>\n<table>\n<thead><tr><th class=\"app\">app</th>";
  for (const std::string &V : M.Variants)
    O << "<th>" << htmlEscape(V) << "</th>";
  O << "<th>labels</th></tr></thead>\n<tbody>\n";
  for (const auto &[App, Row] : M.Rows) {
    O << "<tr><th class=\"app\">" << htmlEscape(App) << "</th>";
    for (const std::string &V : M.Variants) {
      auto It = Row.find(V);
      if (It == Row.end()) {
        O << "<td class=\"none\"></td>";
        continue;
      }
      const Cell &C = It->second;
      if (C.Verdict == "pass") {
        O << "<td class=\"pass\" title=\"pass\">✅<small>" << seconds(C.Seconds) << "</small></td>";
        continue;
      }
      O << "<td class=\"notpass\" title=\"" << htmlEscape(M.Notes[C.Note - 1]) << "\">❌<sup><a href=\"#r"
        << C.Note << "\">" << C.Note << "</a></sup>";
      if (C.Verdict != "build-error") // nothing ran
        O << "<small>" << seconds(C.Seconds) << "</small>";
      O << "</td>";
    }
    O << "<td class=\"labels\">";
    if (auto It = M.Labels.find(App); It != M.Labels.end())
      for (const std::string &L : It->second)
        O << "<code>" << htmlEscape(L) << "</code>";
    O << "</td></tr>\n";
  }
  O << "</tbody>\n</table>\n";
  if (!M.Notes.empty()) {
    O << "<h2>Reasons</h2>\n<ol>\n";
    for (size_t I = 0; I < M.Notes.size(); ++I)
      O << "<li id=\"r" << I + 1 << "\">" << htmlEscape(M.Notes[I]) << "</li>\n";
    O << "</ol>\n";
  }
  auto Counts = labelCounts(M);
  if (!Counts.empty()) {
    O << "<h2>Labels</h2>\n<table>\n<thead><tr><th class=\"app\">label</th><th>apps</th><th>passing</th>"
      << "</tr></thead>\n<tbody>\n";
    for (const auto &[L, C] : Counts)
      O << "<tr><th class=\"app\"><code>" << htmlEscape(L) << "</code></th><td>" << C.first << "</td><td>"
        << C.second << "</td></tr>\n";
    O << "</tbody>\n</table>\n";
  }
  O << "</body>\n</html>\n";
  return O.str();
}

// --- The command -----------------------------------------------------------------

bool writeFile(const std::string &Path, const std::string &Text) {
  if (Path == "-")
    return std::fwrite(Text.data(), 1, Text.size(), stdout) == Text.size();
  std::ofstream F(Path, std::ios::binary | std::ios::trunc);
  F << Text;
  F.close();
  if (!F) {
    std::fprintf(stderr, "ferry matrix: cannot write '%s'\n", Path.c_str());
    return false;
  }
  return true;
}

int usage(FILE *Out, int Code) {
  std::fprintf(Out, "usage: ferry matrix RESULTS.json [--markdown OUT.md] [--html OUT.html]\n"
                    "  Writes the compatibility matrix report from compat-tests/run-matrix's\n"
                    "  results.json; with neither option, prints the Markdown ('-' = stdout).\n");
  return Code;
}

int runMatrix(const std::vector<std::string> &Args) {
  std::string Input, MdOut, HtmlOut;
  for (size_t I = 0; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    if (A == "--help" || A == "-h")
      return usage(stdout, 0);
    if ((A == "--markdown" || A == "--html") && I + 1 < Args.size()) {
      (A == "--html" ? HtmlOut : MdOut) = Args[++I];
      continue;
    }
    if ((!A.empty() && A[0] == '-' && A != "-") || !Input.empty()) {
      std::fprintf(stderr, "ferry matrix: unexpected argument '%s'\n", A.c_str());
      return usage(stderr, 2);
    }
    Input = A;
  }
  if (Input.empty())
    return usage(stderr, 2);
  if (MdOut.empty() && HtmlOut.empty())
    MdOut = "-";

  std::string Text;
  {
    std::ifstream F(Input, std::ios::binary);
    if (!F) {
      std::fprintf(stderr, "ferry matrix: cannot read '%s'\n", Input.c_str());
      return 1;
    }
    std::ostringstream S;
    S << F.rdbuf();
    Text = S.str();
  }
  JsonValue Doc;
  std::string Error;
  Matrix M;
  if (!JsonParser(Text).parse(Doc, Error) || !buildMatrix(Doc, M, Error)) {
    std::fprintf(stderr, "ferry matrix: %s: %s\n", Input.c_str(), Error.c_str());
    return 1;
  }
  bool Ok = true;
  if (!MdOut.empty())
    Ok &= writeFile(MdOut, markdown(M));
  if (!HtmlOut.empty())
    Ok &= writeFile(HtmlOut, html(M));
  return Ok ? 0 : 1;
}

} // namespace

FERRY_REGISTER_COMMAND(Matrix, "matrix", "write the compatibility matrix report from run-matrix results",
                       runMatrix);

} // namespace ferry::tool
