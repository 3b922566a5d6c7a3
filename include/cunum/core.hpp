#pragma once
#include "cunum/core/backend.hpp"
#include "cunum/core/device.hpp"
#include "cunum/core/device_buffer.hpp"
#include "cunum/core/error.hpp"
#include "cunum/core/event_timer.hpp"
#include "cunum/core/stream.hpp"
#include "cunum/version.hpp"
