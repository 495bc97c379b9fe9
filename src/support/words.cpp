// The words of the user's interface in messages (see words.h).
#include "support/words.h"

namespace risec {

namespace {

thread_local std::optional<Interface> current;

Interface now() {
  return current.value_or(Interface::CommandLine);
}

}  // namespace

std::optional<Interface> current_interface() {
  return current;
}

InterfaceScope::InterfaceScope(std::optional<Interface> i, bool unless_set) : saved_(current) {
  if (!unless_set || !current) current = i;
}

InterfaceScope::~InterfaceScope() {
  current = saved_;
}

std::string size_given(const std::string& name) {
  switch (now()) {
    case Interface::Cpp:
      return "sizes[\"" + name + "\"]";
    case Interface::Python:
      return "sizes['" + name + "']";
    default:
      return "--size " + name;
  }
}

std::string how_to_give_size(const std::string& name) {
  switch (now()) {
    case Interface::Cpp:
      return "give sizes[\"" + name + "\"]";
    case Interface::Python:
      return "pass sizes={'" + name + "': ...}";
    default:
      return "pass --size " + name + "=...";
  }
}

std::string sizes_word() {
  switch (now()) {
    case Interface::Cpp:
      return "the sizes";
    case Interface::Python:
      return "sizes=";
    default:
      return "--size";
  }
}

std::string bind_given(const std::string& name, const std::string& file) {
  switch (now()) {
    case Interface::Cpp:
      return "bind[\"" + name + "\"]" + (file.empty() ? "" : " (" + file + ")");
    case Interface::Python:
      return "bind['" + name + "']";
    default:
      return "--bind " + name + (file.empty() ? "" : "=" + file);
  }
}

std::string argument_given(size_t i, const std::string& name) {
  switch (now()) {
    case Interface::Cpp:
      return "inputs[" + std::to_string(i) + "] (" + name + ")";
    case Interface::Python:
      return "argument " + std::to_string(i + 1) + " (" + name + ")";
    default:
      return "--input " + name;
  }
}

std::string bind_word() {
  switch (now()) {
    case Interface::Cpp:
      return "bind";
    case Interface::Python:
      return "bind=";
    default:
      return "--bind";
  }
}

std::string input_word() {
  return now() == Interface::CommandLine ? "--input" : "an argument of the kernel";
}

std::string params_word() {
  switch (now()) {
    case Interface::Cpp:
      return "params";
    case Interface::Python:
      return "params=";
    default:
      return "--param";
  }
}

}  // namespace risec
