// tests/test_scripts.cpp — the shell scripts of tools/scripts/, run for real on what this
// machine can offer without a network or root changes:
//   install_deps.sh  with stand-ins for dpkg-query, id and apt-get placed first on PATH, so
//                    each case chooses what is "installed" and who runs it, and no package is
//                    ever installed;
//   get_data.sh      on fixture archives zipped here from tests/fixtures/data/ and served as
//                    file:// URLs through --manifest (the SHA-1 check, the unpacked layout,
//                    reruns, every failure path), and --dry-run on the book's own table.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace fs = std::filesystem;
namespace utf = boost::unit_test;
using d2l_test::read_file;
using d2l_test::run_capture;
using d2l_test::TempDir;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Writes an executable shell script `name` into dir.
void write_script(const TempDir& dir, const std::string& name, const std::string& body) {
  const std::string path = dir.write(name, "#!/bin/sh\n" + body);
  fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
}

// --- install_deps.sh ---------------------------------------------------------------------
// A PATH prefix with dpkg-query reporting `missing` as not installed (the first as
// "not-installed", the rest as unknown to dpkg) and everything else installed, id -u
// printing `uid`, and an apt-get that only logs its arguments to <dir>/apt-get.log.
struct FakeSystem {
  TempDir dir{"install_deps"};
  FakeSystem(const std::vector<std::string>& missing, int uid) {
    std::string cases;
    for (size_t i = 0; i < missing.size(); ++i)
      cases += "  " + missing[i] + ") " +
               (i == 0 ? std::string("printf not-installed; exit 0 ;;\n")
                       : "echo \"dpkg-query: no packages found matching $pkg\" >&2; exit 1 ;;\n");
    write_script(dir, "dpkg-query", "for pkg; do :; done\ncase \"$pkg\" in\n" + cases + "  *) printf installed ;;\nesac\n");
    write_script(dir, "id", "echo " + std::to_string(uid) + "\n");
    write_script(dir, "apt-get", "echo \"$*\" >> '" + dir("apt-get.log") + "'\n");
  }
  std::pair<int, std::string> run(const std::string& args = "") const {
    return run_capture("PATH='" + dir.path.string() + "':\"$PATH\" bash tools/scripts/install_deps.sh " + args);
  }
  std::string apt_log() const { return fs::exists(dir("apt-get.log")) ? read_file(dir("apt-get.log")) : ""; }
};

// --- get_data.sh -------------------------------------------------------------------------
boost::test_tools::assertion_result archive_tools(utf::test_unit_id) {
  return d2l_test::command_succeeds("command -v curl && command -v zip && command -v unzip && command -v sha1sum",
                                    "curl, zip, unzip and sha1sum are needed (bash tools/scripts/install_deps.sh)");
}

std::string sha1_of(const fs::path& file) {
  const auto [rc, out] = run_capture("sha1sum '" + file.string() + "' | cut -d' ' -f1");
  BOOST_REQUIRE_EQUAL(rc, 0);
  return out.substr(0, 40);
}

// Fixture archives as the book's: <name>.zip holding the folder <name>/ of tests/fixtures/data,
// and a manifest listing them by file:// URL with their SHA-1.
struct Mirror {
  TempDir dir{"get_data"};
  std::string manifest;
  Mirror() {
    const fs::path fixtures = fs::absolute(d2l_test::kFixtureRoot) / "data";
    std::string lines = "# the fixture archives\n";
    for (const auto& [name, marker] : std::vector<std::pair<std::string, std::string>>{
             {"fra-eng", "fra-eng/fra.txt"},
             {"snli_1.0", "snli_1.0/snli_1.0_train.txt"},
             {"glove.6B.100d", "glove.6B.100d/vec.txt"}}) {
      const fs::path zip = dir.path / "mirror" / (name + ".zip");
      fs::create_directories(zip.parent_path());
      const auto [rc, out] = run_capture("cd '" + fixtures.string() + "' && zip -qr '" + zip.string() + "' " + name);
      BOOST_REQUIRE_MESSAGE(rc == 0, out);
      lines += name + " file://" + zip.string() + " " + sha1_of(zip) + " " + marker + "\n";
    }
    manifest = dir.write("manifest.txt", lines);
  }
  // Runs get_data.sh with DATA_DIR under the mirror's directory.
  std::pair<int, std::string> run(const std::string& data_dir, const std::string& args) const {
    return run_capture("DATA_DIR='" + dir(data_dir) + "' bash tools/scripts/get_data.sh " + args);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(scripts)

BOOST_AUTO_TEST_CASE(install_deps_all_installed_needs_no_root) {
  const FakeSystem sys({}, 65534);  // nobody
  const auto [rc, out] = sys.run();
  BOOST_TEST(rc == 0, out);
  BOOST_TEST(contains(out, "install_deps: all 10 packages already installed: g++ make"), out);
  BOOST_TEST(sys.apt_log().empty());
  // The optional groups are checked the same way.
  const auto [rc2, out2] = sys.run("--bench --fuzz");
  BOOST_TEST(rc2 == 0, out2);
  BOOST_TEST(contains(out2, "all 15 packages already installed"), out2);
  const auto [rc3, out3] = sys.run("--browser");
  BOOST_TEST(rc3 == 0, out3);
  BOOST_TEST(contains(out3, "all 14 packages already installed: g++ make libboost-test-dev libstb-dev "
                            "fonts-dejavu-core graphviz curl unzip ca-certificates zip chromium python3 "
                            "fonts-wqy-microhei emscripten"), out3);
}

BOOST_AUTO_TEST_CASE(install_deps_names_missing_and_the_apt_get_line) {
  const FakeSystem user({"curl", "unzip"}, 1000);
  const auto [rc, out] = user.run();
  BOOST_TEST(rc == 1, out);
  BOOST_TEST(contains(out, "install_deps: missing Debian packages: curl unzip"), out);
  BOOST_TEST(contains(out, "\n  apt-get update && apt-get install -y --no-install-recommends curl unzip\n"), out);
  BOOST_TEST(user.apt_log().empty());
  // --check never installs, even for root.
  const FakeSystem root_check({"python3-torch"}, 0);
  const auto [rc2, out2] = root_check.run("--bench --check");
  BOOST_TEST(rc2 == 1, out2);
  BOOST_TEST(contains(out2, "apt-get install -y --no-install-recommends python3-torch"), out2);
  BOOST_TEST(root_check.apt_log().empty());
  // Bad usage.
  BOOST_TEST(user.run("--gpu").first == 2);
}

BOOST_AUTO_TEST_CASE(install_deps_as_root_installs_only_the_missing) {
  const FakeSystem root({"zip"}, 0);
  const auto [rc, out] = root.run();
  BOOST_TEST(rc == 0, out);
  BOOST_TEST(contains(out, "installing the missing Debian packages: zip"), out);
  BOOST_TEST(root.apt_log() == "update -qq\ninstall -y -qq --no-install-recommends zip\n");
}

BOOST_AUTO_TEST_CASE(get_data_dry_run_lists_the_books_archives) {
  TempDir tmp("get_data_dry");
  const auto [rc, out] =
      run_capture("DATA_DIR='" + tmp("data") + "' bash tools/scripts/get_data.sh --dry-run");
  BOOST_TEST(rc == 0, out);
  // The book's DATA_HUB entries, and nothing written.
  BOOST_TEST(contains(out, "http://d2l-data.s3-accelerate.amazonaws.com/fra-eng.zip"), out);
  BOOST_TEST(contains(out, "SHA-1 94646ad1522d915e7b0f9296181140edcf86a4f5"), out);
  BOOST_TEST(contains(out, "https://nlp.stanford.edu/projects/snli/snli_1.0.zip"), out);
  BOOST_TEST(contains(out, "SHA-1 9fcde07509c7e87ec61c640c1b2753d9041758e4"), out);
  BOOST_TEST(contains(out, "http://d2l-data.s3-accelerate.amazonaws.com/glove.6B.100d.zip"), out);
  BOOST_TEST(contains(out, "SHA-1 cd43bfb07e44e6f27cbcc7bc9ae3d80284fdaf5a"), out);
  BOOST_TEST(contains(out, "unpack it to " + tmp("data") + "/glove.6B.100d/vec.txt"), out);
  BOOST_TEST(!fs::exists(tmp("data")));
  const auto [rc2, out2] =
      run_capture("DATA_DIR='" + tmp("data") + "' bash tools/scripts/get_data.sh --dry-run --no-glove");
  BOOST_TEST(rc2 == 0);
  BOOST_TEST(!contains(out2, "glove"), out2);
  BOOST_TEST(run_capture("bash tools/scripts/get_data.sh --glove").first == 2);
}

BOOST_AUTO_TEST_CASE(get_data_fetches_checks_and_unpacks, *utf::precondition(archive_tools)) {
  const Mirror mirror;
  const auto [rc, out] = mirror.run("data", "--manifest " + mirror.manifest);
  BOOST_TEST(rc == 0, out);
  BOOST_TEST(contains(out, "data/fra-eng.zip: SHA-1 ok"), out);
  BOOST_TEST(contains(out, "[data] all data in"), out);
  // The book's layout, byte for byte the fixture files; the archives are kept, nothing else.
  const fs::path data = mirror.dir("data"), fixtures = fs::path(d2l_test::kFixtureRoot) / "data";
  for (const char* file : {"fra-eng/fra.txt", "snli_1.0/snli_1.0_train.txt", "snli_1.0/snli_1.0_test.txt",
                           "glove.6B.100d/vec.txt"})
    BOOST_TEST(read_file(data / file) == read_file(fixtures / file), file);
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(data)) {
    ++entries;
    BOOST_TEST(e.path().filename().string().rfind(".", 0) != 0, "left behind: " << e.path());
  }
  BOOST_TEST(entries == 6u);  // three folders, three archives
  // A second run finds everything and downloads nothing.
  const auto [rc2, out2] = mirror.run("data", "--manifest " + mirror.manifest);
  BOOST_TEST(rc2 == 0, out2);
  BOOST_TEST(contains(out2, "fra-eng/fra.txt already there"), out2);
  BOOST_TEST(!contains(out2, "downloading"), out2);
  // An archive put there by hand (offline use) is checked and unpacked, not downloaded.
  fs::create_directories(mirror.dir("offline"));
  fs::copy_file(mirror.dir("mirror/fra-eng.zip"), mirror.dir("offline/fra-eng.zip"));
  const auto [rc3, out3] = mirror.run("offline", "--manifest " + mirror.manifest);
  BOOST_TEST(rc3 == 0, out3);
  BOOST_TEST(contains(out3, "offline/fra-eng.zip: SHA-1 ok"), out3);
  BOOST_TEST(!contains(out3, "downloading file://" + mirror.dir("mirror/fra-eng.zip")), out3);
}

BOOST_AUTO_TEST_CASE(get_data_failures_leave_nothing_half_done, *utf::precondition(archive_tools)) {
  const Mirror mirror;
  const std::string zip = mirror.dir("mirror/fra-eng.zip"), sha = sha1_of(zip);
  auto manifest = [&](const std::string& name, const std::string& line) { return mirror.dir.write(name, line + "\n"); };
  {  // A wrong SHA-1: the archive is deleted, nothing unpacked, exit 1.
    const std::string wrong(40, '0');
    const auto [rc, out] = mirror.run("bad_sha", "--manifest " + manifest("m1", "fra-eng file://" + zip + " " + wrong + " fra-eng/fra.txt"));
    BOOST_TEST(rc == 1, out);
    BOOST_TEST(contains(out, "has SHA-1 " + sha + ", expected " + wrong + "; deleted it"), out);
    BOOST_TEST(contains(out, "FAILED: fra-eng"), out);
    BOOST_TEST(!fs::exists(mirror.dir("bad_sha/fra-eng.zip")));
    BOOST_TEST(!fs::exists(mirror.dir("bad_sha/fra-eng")));
  }
  {  // A URL that cannot be fetched: no .part file left.
    const auto [rc, out] = mirror.run("no_url", "--manifest " + manifest("m2", "fra-eng file://" + mirror.dir("none.zip") + " " + sha + " fra-eng/fra.txt"));
    BOOST_TEST(rc == 1, out);
    BOOST_TEST(contains(out, "could not download file://"), out);
    BOOST_TEST(fs::is_empty(mirror.dir("no_url")));
  }
  {  // The right SHA-1 but not the promised file inside.
    const auto [rc, out] = mirror.run("no_marker", "--manifest " + manifest("m3", "fra-eng file://" + zip + " " + sha + " fra-eng/eng.txt"));
    BOOST_TEST(rc == 1, out);
    BOOST_TEST(contains(out, "does not contain fra-eng/eng.txt"), out);
    BOOST_TEST(!fs::exists(mirror.dir("no_marker/fra-eng")));
    BOOST_TEST(!fs::exists(mirror.dir("no_marker/.unpack-fra-eng")));
  }
  {  // Not a zip at all (its SHA-1 listed): unzip fails, no folder.
    const std::string junk = mirror.dir.write("junk.zip", "this is not a zip archive\n");
    const auto [rc, out] = mirror.run("junk", "--manifest " + manifest("m4", "fra-eng file://" + junk + " " + sha1_of(junk) + " fra-eng/fra.txt"));
    BOOST_TEST(rc == 1, out);
    BOOST_TEST(contains(out, "could not unpack"), out);
    BOOST_TEST(!fs::exists(mirror.dir("junk/fra-eng")));
    BOOST_TEST(!fs::exists(mirror.dir("junk/.unpack-fra-eng")));
  }
  {  // A malformed manifest line, an empty manifest, a missing one: usage errors.
    BOOST_TEST(mirror.run("x", "--manifest " + manifest("m5", "fra-eng file://" + zip)).first == 2);
    BOOST_TEST(mirror.run("x", "--manifest " + manifest("m6", "# nothing")).first == 2);
    BOOST_TEST(mirror.run("x", "--manifest " + mirror.dir("none.txt")).first == 2);
  }
  {  // Neither curl nor wget on PATH: one clear line (bash and the other tools stay reachable).
    TempDir bin("get_data_bin");
    for (const char* tool : {"bash", "dirname", "basename", "mkdir", "rm", "mv", "cut", "cat", "sha1sum", "unzip"}) {
      const auto [rc, where] = run_capture(std::string("command -v ") + tool);
      BOOST_REQUIRE_EQUAL(rc, 0);
      fs::create_symlink(where.substr(0, where.find('\n')), bin.path / tool);
    }
    const auto [rc, out] = run_capture("PATH='" + bin.path.string() + "' DATA_DIR='" + mirror.dir("nodl") +
                                       "' bash tools/scripts/get_data.sh --manifest " + mirror.manifest);
    BOOST_TEST(rc == 1, out);
    BOOST_TEST(contains(out, "neither curl nor wget found (Debian: apt-get install curl)"), out);
  }
}

BOOST_AUTO_TEST_SUITE_END()
