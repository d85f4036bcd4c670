#include "../../fake_torch.h"
