// Seeded random networks of dense layers (RISE text) and the host's block machine, for
// the tests of the autoscheduler's blocked and row-panel candidates
// (layer_epilogue_test.cpp, schedule_row_panels_test.cpp, schedule_panels_test.cpp,
// schedule_prefetch_test.cpp).
#pragma once

#include <random>
#include <string>

#include "driver/schedule_blocked.h"
#include "support/cpu.h"

namespace risec::driver {

struct DenseNet {
  std::string text;  // `def net = depFun((b, d0, ..., dL) => fun(x => fun(w0 => ...)))`
  int layers = 0;
  int bare = 0;  // layers without an epilogue (no bias, no relu)
};

// A network of `layers` dense layers on x: b.d0, layer i with weights d_i x d_{i+1}
// read through transpose (torch.addmm's layout), a bias or not (added first or last),
// a relu inside the layer or none, and with `relu_after` also a relu as a map over
// the layer's result.
inline DenseNet random_dense_net(std::mt19937_64& rng, int layers, bool relu_after) {
  DenseNet n;
  n.layers = layers;
  std::string nats = "b: Nat", params = "fun(x: b.d0.f32 => ", close = ")", lets, body = "x";
  for (int i = 0; i <= layers; ++i) nats += ", d" + std::to_string(i) + ": Nat";
  for (int i = 0; i < layers; ++i) {
    const std::string w = "w" + std::to_string(i), bias = "c" + std::to_string(i);
    const std::string din = "d" + std::to_string(i), dout = "d" + std::to_string(i + 1);
    const bool has_bias = rng() % 3 != 0;
    const int relu = static_cast<int>(rng() % (relu_after ? 3 : 2));  // none, inside, after
    if (!has_bias && relu == 0) ++n.bare;
    params += "fun(" + w + ": " + din + "." + dout + ".f32 => ";
    close += ")";
    if (has_bias) {
      params += "fun(" + bias + ": " + dout + ".f32 => ";
      close += ")";
    }
    const std::string col = has_bias ? "cb._1" : "cb";
    std::string e = "(zip(r)(" + col + ") |> map(fun(t => t._1 * t._2)) |> reduce(add)(0.0f))";
    if (has_bias) e = rng() % 2 ? "(cb._2 + " + e + ")" : "(" + e + " + cb._2)";
    if (relu == 1) e = "fmax(" + e + ")(0.0f)";
    const std::string cols =
        has_bias ? "zip(transpose(" + w + "))(" + bias + ")" : "transpose(" + w + ")";
    std::string layer = "map(fun(r => " + cols + " |> map(fun(cb => " + e + "))))(" + body + ")";
    if (relu == 2) layer = "(" + layer + " |> map(map(fun(v => fmax(v)(0.0f)))))";
    if (i + 1 < layers) {
      const std::string h = "h" + std::to_string(i);
      body = h;
      lets += "let " + h + " = " + layer + " in ";
    } else {
      body = layer;
    }
  }
  n.text = "def net = depFun((" + nats + ") =>\n  " + params + lets + body + close + ")\n";
  return n;
}

// This host's vector registers, with the thread count and fork/join cost given.
inline BlockMachine host_block_machine(int threads, double fork_join_cycles) {
  BlockMachine m;
  m.lanes = machine_lanes();
  m.registers = m.lanes >= 16 ? 32 : 16;
  m.threads = threads;
  m.fork_join_cycles = fork_join_cycles;
  return m;
}

// The strategy steps of a blocked point on `target`, joined by ` ; ` as a candidate's text.
inline std::string block_steps_text(const BlockPoint& p, const std::string& target) {
  std::string text;
  for (const BlockStep& b : block_steps(p, target))
    text += (text.empty() ? "" : " ; ") + b.strategy;
  return text;
}

}  // namespace risec::driver
