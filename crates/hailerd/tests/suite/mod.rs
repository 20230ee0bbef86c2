mod limits;
mod openapi_drift;
