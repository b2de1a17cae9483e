// A torch::data pipeline the input pipeline analysis can see. Swap one call:
//
//   auto loader = mlprof::libtorch::make_data_loader(std::move(dataset), options);
//   for (auto& batch : *loader) { ... }   // unchanged
//
// and the pipeline is annotated with tf.data-style long names (consumers first, the stage's
// own type last), so input_pipeline_analyzer and tf_data_bottleneck_analysis work on it:
//   Iterator::DataLoader                           the training thread waiting for a batch
//   Iterator::DataLoader::Batch                    making one batch: collation (Stack) is its
//                                                  own work (ParallelBatch when workers > 0)
//   Iterator::DataLoader::Batch::Map               a transform of the dataset (one per .map())
//   Iterator::DataLoader::Batch::Map::DatasetGet   the dataset's get(), once per example
// Worker threads are named "DataLoader worker N". With no step markers in the program, each
// batch the training thread asks for begins a step.
//
// Link mlprof::torch. The annotations cost nothing measurable when no session runs.
#pragma once

#include <torch/data.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "mlprof/mlprof.h"

namespace mlprof::libtorch {

// libmlprof_torch: the calling thread asks for its next batch (a step boundary).
void on_input_request(uint64_t now) noexcept;

namespace detail {

inline constexpr char kRootName[] = "Iterator::DataLoader";

template <typename T>
struct is_collation : std::false_type {};
template <typename T>
struct is_collation<torch::data::transforms::Stack<T>> : std::true_type {};

template <typename D>
concept has_get = requires(D& d, size_t i) { d.get(i); };

// One layer of the dataset chain, rebuilt from the torch::data one so each layer can be
// timed: a source dataset (this template) or a MapDataset (the specialisation below).
template <typename D>
class Stage {
 public:
  using BatchType = typename D::BatchType;
  using BatchRequestType = typename D::BatchRequestType;

  Stage(D dataset, const std::string& consumer) : dataset_(std::move(dataset)), name_(consumer + "::DatasetGet") {}

  BatchType get_batch(BatchRequestType request) {
    if constexpr (has_get<D> && std::is_same_v<BatchType, std::vector<typename D::ExampleType>>) {
      BatchType batch;
      batch.reserve(request.size());
      for (const size_t index : request) {
        Trace t(name_);
        batch.push_back(dataset_.get(index));
      }
      return batch;
    } else {
      Trace t(name_);
      return dataset_.get_batch(std::move(request));
    }
  }
  torch::optional<size_t> size() const { return dataset_.size(); }

 private:
  D dataset_;
  std::string name_;
};

template <typename S, typename T>
class Stage<torch::data::datasets::MapDataset<S, T>> {
 public:
  using Map = torch::data::datasets::MapDataset<S, T>;
  using BatchType = typename Map::BatchType;
  using BatchRequestType = typename Map::BatchRequestType;

  // Collation is the Batch stage's own work; any other transform is a Map stage.
  Stage(Map map, const std::string& consumer)
      : name_(is_collation<T>::value ? consumer : consumer + "::Map"),
        source_(map.dataset(), name_),
        transform_(map.transform()) {}

  BatchType get_batch(BatchRequestType request) {
    if constexpr (is_collation<T>::value) {
      return transform_.apply_batch(source_.get_batch(std::move(request)));
    } else {
      Trace t(name_);
      return transform_.apply_batch(source_.get_batch(std::move(request)));
    }
  }
  torch::optional<size_t> size() const { return source_.size(); }

 private:
  std::string name_;
  Stage<S> source_;
  T transform_;
};

// What the copies of a dataset share (the DataLoader copies it into each worker).
struct LoaderShared {
  bool parallel = false;
  std::atomic<int> workers_named{0};
};

}  // namespace detail

// A dataset whose every layer is timed; what make_data_loader() gives the DataLoader.
template <typename Dataset>
class TracedDataset
    : public torch::data::datasets::BatchDataset<TracedDataset<Dataset>, typename Dataset::BatchType,
                                                 typename Dataset::BatchRequestType> {
 public:
  using BatchType = typename Dataset::BatchType;
  using BatchRequestType = typename Dataset::BatchRequestType;

  TracedDataset(Dataset dataset, std::shared_ptr<detail::LoaderShared> shared)
      : shared_(std::move(shared)),
        name_(std::string(detail::kRootName) + (shared_->parallel ? "::ParallelBatch" : "::Batch")),
        stages_(std::move(dataset), name_) {}

  BatchType get_batch(BatchRequestType request) override {
    if (shared_->parallel) name_worker_thread();
    Trace t(name_);
    return stages_.get_batch(std::move(request));
  }
  torch::optional<size_t> size() const override { return stages_.size(); }

 private:
  void name_worker_thread() {
    thread_local bool named = false;
    if (named) return;
    named = true;
    set_thread_name("DataLoader worker " + std::to_string(shared_->workers_named.fetch_add(1)));
  }

  std::shared_ptr<detail::LoaderShared> shared_;
  std::string name_;
  detail::Stage<Dataset> stages_;
};

// Owns a torch::data DataLoader; iterating it times each wait for a batch.
template <typename Loader>
class TracedDataLoader {
 public:
  using BatchType = typename Loader::BatchType;

  class Iterator {
   public:
    using difference_type = std::ptrdiff_t;
    using value_type = BatchType;
    using pointer = BatchType*;
    using reference = BatchType&;
    using iterator_category = std::input_iterator_tag;

    Iterator(torch::data::Iterator<BatchType> it, torch::data::Iterator<BatchType> end, bool sentinel)
        : it_(std::move(it)), end_(std::move(end)), fetched_(sentinel) {}

    // LibTorch fetches the first batch on first use and each next one in ++.
    Iterator& operator++() {
      on_input_request(now_ticks());
      Trace t(detail::kRootName);
      ++it_;
      return *this;
    }
    BatchType& operator*() {
      fetch_first();
      return *it_;
    }
    BatchType* operator->() { return &**this; }
    bool operator==(Iterator& other) {
      fetch_first();
      other.fetch_first();
      return it_ == other.it_;
    }
    bool operator!=(Iterator& other) { return !(*this == other); }

   private:
    void fetch_first() {
      if (fetched_) return;
      fetched_ = true;
      on_input_request(now_ticks());
      Trace t(detail::kRootName);
      (void)(it_ == end_);
    }

    torch::data::Iterator<BatchType> it_, end_;
    bool fetched_;
  };

  explicit TracedDataLoader(std::unique_ptr<Loader> loader) : loader_(std::move(loader)) {}

  Iterator begin() { return Iterator(loader_->begin(), loader_->end(), false); }
  Iterator end() { return Iterator(loader_->end(), loader_->end(), true); }
  Loader& loader() { return *loader_; }
  void join() { loader_->join(); }

 private:
  std::unique_ptr<Loader> loader_;
};

// torch::data::make_data_loader(), traced.
template <typename Sampler, typename Dataset>
auto make_data_loader(Dataset dataset, Sampler sampler, torch::data::DataLoaderOptions options) {
  auto shared = std::make_shared<detail::LoaderShared>();
  shared->parallel = options.workers() > 0;
  using Loader = torch::data::StatelessDataLoader<TracedDataset<Dataset>, Sampler>;
  return std::make_unique<TracedDataLoader<Loader>>(std::make_unique<Loader>(
      TracedDataset<Dataset>(std::move(dataset), std::move(shared)), std::move(sampler), std::move(options)));
}

template <typename Sampler = torch::data::samplers::RandomSampler, typename Dataset>
auto make_data_loader(Dataset dataset, torch::data::DataLoaderOptions options = torch::data::DataLoaderOptions()) {
  const auto size = dataset.size();
  TORCH_CHECK(size.has_value(), "Expected the dataset to be sized in order to construct the Sampler");
  return ::mlprof::libtorch::make_data_loader(std::move(dataset), Sampler(*size), std::move(options));
}

}  // namespace mlprof::libtorch
