// The `hop` binary: subcommands and their flags. Each subcommand's work lives in its own file;
// this one only wires the command line to it.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/check_command.h"
#include "common/log.h"
#include "sql/dialect.h"

namespace {

constexpr const char* kVersion = HOP_VERSION;

// Reads a file, or standard input for "-". False if it cannot be read.
bool ReadInput(const std::string& path, std::string* text) {
  std::stringstream buf;
  if (path == "-") {
    buf << std::cin.rdbuf();
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    buf << in.rdbuf();
  }
  *text = buf.str();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hop: SQL control plane for multi-system data pipelines"};
  app.set_version_flag("--version", std::string("hop ") + kVersion);
  std::string log_level = "warn";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off")
      ->capture_default_str();
  app.require_subcommand(0, 1);

  // hop check
  auto* check = app.add_subcommand("check", "Parse a SQL script and report every error");
  std::string check_file;
  std::string dialect_name = "ansi";
  bool check_print = false;
  check->add_option("file", check_file, "script to check, or - for standard input")->required();
  check->add_flag("--print", check_print, "print each statement in canonical form");
  check->add_option("--dialect", dialect_name, "ansi, flink, postgres or sqlite")
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  hop::log::Level level;
  if (!hop::log::ParseLevel(log_level, &level)) {
    std::cerr << "hop: unknown log level '" << log_level << "'\n";
    return 2;
  }
  hop::log::SetLevel(level);

  if (check->parsed()) {
    hop::cli::CheckOptions options;
    options.print = check_print;
    if (!hop::sql::ParseDialect(dialect_name, &options.dialect)) {
      std::cerr << "hop check: unknown dialect '" << dialect_name
                << "' (expected ansi, flink, postgres or sqlite)\n";
      return 2;
    }
    std::string text;
    if (!ReadInput(check_file, &text)) {
      std::cerr << "hop check: cannot read " << check_file << "\n";
      return 2;
    }
    const std::string name = check_file == "-" ? "<stdin>" : check_file;
    auto summary = hop::cli::CheckScript(name, text, options, std::cout, std::cerr);
    if (summary.errors > 0) {
      std::cerr << name << ": " << summary.errors << " of " << summary.statements
                << " statement(s) failed\n";
      return 1;
    }
    if (!check_print) {
      std::cout << name << ": " << summary.statements << " statement(s) OK\n";
    }
    return 0;
  }

  std::cout << app.help();
  return 0;
}
