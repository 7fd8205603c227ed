def shape(body, lane):
    return {**body, "lane": lane["id"]}
