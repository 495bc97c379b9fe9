// The words messages use for what the user gave, in the terms of the interface they
// called (issue 32, item 9): the command line's options (`--size n=4`, `--bind
// w=w.npy`, `--param`), the C++ API's arguments (`sizes["n"]`, `bind["w"]`,
// `params`) or the Python package's (`sizes={'n': ...}`, `bind['w']`, `params=`).
// The interface belongs to the thread (and to the large-stack threads it starts,
// support/stack.h): the command line sets CommandLine, the Python module Python, and
// the C++ API Cpp where no other was set. Without any, messages use the command
// line's words.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace risec {

enum class Interface { CommandLine, Cpp, Python };

// The interface of this thread, if one was set.
std::optional<Interface> current_interface();

// Sets the thread's interface for its lifetime (restoring the previous one after);
// with `unless_set`, only when none is set (the C++ API, which the command line and
// the Python module call too).
class InterfaceScope {
 public:
  explicit InterfaceScope(std::optional<Interface> i, bool unless_set = false);
  ~InterfaceScope();
  InterfaceScope(const InterfaceScope&) = delete;
  InterfaceScope& operator=(const InterfaceScope&) = delete;

 private:
  std::optional<Interface> saved_;
};

// How the size `name` was given: "--size n", "sizes[\"n\"]", "sizes['n']".
std::string size_given(const std::string& name);
// How to give it: "pass --size n=...", "give sizes[\"n\"]", "pass sizes={'n': ...}".
std::string how_to_give_size(const std::string& name);
// The sizes as a whole: "--size", "the sizes", "sizes=".
std::string sizes_word();
// How the input `name` was bound to `file`: "--bind w=w.npy", "bind[\"w\"] (w.npy)",
// "bind['w']"; an input bound from memory has no file (""): "bind[\"w\"]".
std::string bind_given(const std::string& name, const std::string& file);
// The i-th (0-based) data input `name` of a call: "--input x", "inputs[0] (x)",
// "argument 1 (x)".
std::string argument_given(size_t i, const std::string& name);
// The binding as a whole: "--bind", "bind", "bind=".
std::string bind_word();
// How to pass an input that cannot be bound: "--input", "an argument of the kernel".
std::string input_word();
// The strategy's parameter values: "--param", "params", "params=".
std::string params_word();

}  // namespace risec
