mod limits;
mod module_order;
mod openapi_drift;
