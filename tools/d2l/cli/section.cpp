// tools/d2l/cli/section.cpp — a section's main and its room (tools/d2l/cli/section.h).
#include "tools/d2l/cli/section.h"

#include <memory>
#include <stdexcept>

#include "tools/d2l/cli/exercises.h"
#include "tools/d2l/cli/run.h"

namespace d2l {

namespace {
std::unique_ptr<SectionRoom>& registered_room() {
  static std::unique_ptr<SectionRoom> room;
  return room;
}
}  // namespace

RegisterSection::RegisterSection(SectionRoom room) {
  if (registered_room()) throw std::logic_error("RegisterSection: a program has one section room");
  registered_room() = std::make_unique<SectionRoom>(std::move(room));
}

int run_section(const std::string& name, int argc, char** argv, const std::function<void()>& book) {
  const SectionRoom room = registered_room() ? *registered_room() : SectionRoom{name};
  CliArgs args(name, room.title);
  if (room.options) room.options(args);
  set_run_book(book);
  return run_chapter(args, argc, argv, [&](const std::string&) {
    if (room.instead && room.instead()) return;
    book();
    if (room.after) room.after();
  }, room.defaults);
}

CliArgs section_args(const std::string& name) {
  const SectionRoom room = registered_room() ? *registered_room() : SectionRoom{name};
  CliArgs args(name, room.title);
  if (room.options) room.options(args);
  add_exercise_options(args);
  add_chapter_options(args, "out/" + args.program(), /*seed=*/0, room.defaults.threads);
  return args;
}

}  // namespace d2l
