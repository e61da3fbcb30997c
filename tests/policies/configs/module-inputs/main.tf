# This project's module (and its queue submodule, used on its own) with settings its
# validation accepts but the rules warn about: the remediations name the module
# inputs to change, not the attributes of the resources the module writes.
module "messaging" {
  source     = "../../../.."
  account_id = "123456789012"
  queues = {
    orders = { max_receive_count = 8 }
    feed   = { receive_wait_time_seconds = 0, allow_short_polling = true }
  }
}

module "legacy" {
  source            = "../../../../modules/queue"
  name              = "mi-legacy"
  account_id        = "123456789012"
  max_receive_count = 2
}
