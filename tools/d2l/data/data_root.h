// tools/d2l/data/data_root.h — where a chapter program finds the repository's data, from
// whatever directory it is run: the bundled corpora under chapters/data/ and what `make data`
// puts under data/ both sit in the repository, so the programs look for the repository root.
//
// The current directory when it holds data/ (the book's files from `make data`) and D2L_ROOT
// is not set; else, in this order, the first directory that holds chapters/data/:
//   1. $D2L_ROOT, when set (a copy of the repository elsewhere);
//   2. the current directory (the usual case: `build/chapters/x` run from the repository);
//   3. the program's own directory and its parents (build/chapters/x finds ../../);
//   4. the repository the program was built from (its absolute path, compiled in).
// None found: "." (the resolvers then name the files they looked for and how to get them).
#pragma once
#include <string>
#include <vector>

namespace d2l {

// The root as a path to prefix: "." when the current directory is the repository (so the
// paths programs print stay "chapters/data/...", as before), else an absolute path.
std::string data_root();

// The directories data_root() tried, in order, for an error message's HINT.
std::vector<std::string> data_root_candidates();

}  // namespace d2l
